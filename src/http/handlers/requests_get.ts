import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { receiptToWire } from '../serialize/receipts.ts';

export async function requests_get(ctx: PublicContext<'requests_get'>): Promise<Ok<PublicOperations, 'requests_get'> | Failure> {
  const { billing, discovery } = ctx.services;
  const receipt = await billing.receipt(ctx.caller, ctx.params.request_id);
  if (receipt instanceof Failure) return receipt;
  return { status: 200, body: receiptToWire(receipt, discovery.currency()) };
}
