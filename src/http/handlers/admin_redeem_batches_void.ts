import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

type Body = AdminOperations['admin_redeem_batches_void']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export async function admin_redeem_batches_void(ctx: RequestContext<Body | undefined>): Promise<Ok<AdminOperations, 'admin_redeem_batches_void'> | Failure> {
  const result = await ctx.services.redeem.voidBatch(ctx.params.batch_id ?? '', ctx.body?.reason ?? null);
  if (result instanceof Failure) return result;
  return { status: 200, body: { object: 'redeem_batch_void', voided: result.voided, batch: batchToWire(result.batch, ctx.services.discovery.currency()) } };
}
