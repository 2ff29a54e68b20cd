import { Failure } from '../../domain/failure.ts';
import { parseMicros } from '../../shared/money.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

type Body = AdminOperations['admin_redeem_batches_create']['requestBody']['content']['application/json'];

export async function admin_redeem_batches_create(ctx: RequestContext<Body>): Promise<Ok<AdminOperations, 'admin_redeem_batches_create'> | Failure> {
  const minted = await ctx.services.redeem.mint({
    amount: parseMicros(ctx.body.amount), // the spec's pattern admits only plain decimals
    count: ctx.body.count,
    expiresAt: new Date(ctx.body.expires_at),
    note: ctx.body.note ?? null,
  });
  if (minted instanceof Failure) return minted;
  return { status: 201, body: { ...batchToWire(minted.batch, ctx.services.discovery.currency()), codes: minted.codes } };
}
