import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

export async function admin_redeem_batches_void(
  ctx: AdminContext<'admin_redeem_batches_void'>,
): Promise<Ok<AdminOperations, 'admin_redeem_batches_void'> | Failure> {
  const result = await ctx.services.redeem.voidBatch(ctx.params.batch_id, ctx.body?.reason ?? null);
  if (result instanceof Failure) return result;
  return { status: 200, body: { object: 'redeem_batch_void', voided: result.voided, batch: batchToWire(result.batch, ctx.services.discovery.currency()) } };
}
