import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

export async function admin_redeem_batches_get(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_redeem_batches_get'> | Failure> {
  const batch = await ctx.services.redeem.batch(ctx.params.batch_id ?? '');
  return batch instanceof Failure ? batch : { status: 200, body: batchToWire(batch, ctx.services.discovery.currency()) };
}
