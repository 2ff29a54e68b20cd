import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { adminReceiptToWire } from '../serialize/receipts.ts';

export async function admin_receipts_get(ctx: AdminContext<'admin_receipts_get'>): Promise<Ok<AdminOperations, 'admin_receipts_get'> | Failure> {
  const { billing, discovery } = ctx.services;
  const receipt = await billing.receiptOfAny(ctx.params.request_id);
  if (receipt instanceof Failure) return receipt;
  return { status: 200, body: adminReceiptToWire(receipt, discovery.currency()) };
}
