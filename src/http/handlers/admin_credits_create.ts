import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { parseMicros } from '../../shared/money.ts';
import { isLedgerError } from '../../ledger/index.ts';
import { failureOf } from '../errors.ts';
import { postingReply } from '../serialize/ledger.ts';

export async function admin_credits_create(ctx: AdminContext<'admin_credits_create'>): Promise<Ok<AdminOperations, 'admin_credits_create'> | Failure> {
  const customerId = ctx.params.customer_id;
  const { ledger } = ctx.services;
  const result = await ledger.topUp({
    ref: ctx.body.reference,
    customerId,
    amount: parseMicros(ctx.body.amount), // the spec's pattern admits only plain decimals
    purpose: { actor: 'admin', request_id: ctx.requestId },
  });
  if (isLedgerError(result)) {
    if (result === 'customer_not_found') return failureOf(result);
    if (result === 'reference_conflict') return failureOf(result, 'reference');
    return failureOf(result, 'amount');
  }
  return postingReply(ctx, 'credit', customerId, result);
}
