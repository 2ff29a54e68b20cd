import type { AdminOperations } from '../../types.ts';
import { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import { isLedgerError, LedgerError } from '../../ledger/index.ts';
import { failureOf } from '../errors.ts';
import { postingReply } from '../serialize/ledger.ts';

export async function admin_adjustments_create(
  ctx: AdminContext<'admin_adjustments_create'>,
): Promise<Ok<AdminOperations, 'admin_adjustments_create'> | Failure> {
  const customerId = ctx.params.customer_id;
  const { ledger } = ctx.services;
  const negative = ctx.body.amount.startsWith('-');
  const magnitude = parseMicros(negative ? ctx.body.amount.slice(1) : ctx.body.amount); // the spec's pattern admits only plain decimals
  const result = await ledger.adjust({
    ref: ctx.body.reference,
    customerId,
    amount: negative ? -magnitude : magnitude,
    reason: ctx.body.reason,
    actor: ctx.body.actor ?? 'admin',
    recordDebt: ctx.body.record_debt === true,
  });
  if (isLedgerError(result)) {
    if (result === LedgerError.CustomerNotFound) return failureOf(result);
    if (result === LedgerError.ReferenceConflict) return failureOf(result, 'reference');
    if (result === LedgerError.InsufficientFunds) {
      const balance = await ledger.balance(customerId);
      const available = isLedgerError(balance) ? '0.000000' : formatMicros(balance.available);
      return new Failure(
        result,
        `The wallet has ${available} available, less than this debit. Debit at most that, or pass record_debt: true to record the rest as the customer's debt.`,
        { param: 'amount' },
      );
    }
    return failureOf(result, 'amount');
  }
  return postingReply(ctx, 'adjustment', customerId, result);
}
