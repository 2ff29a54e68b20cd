// Posted money that no reservation precedes: top-ups and operator adjustments.
import type { Knex } from 'knex';
import { LedgerAbort, validAmount, type LedgerContext } from './context.ts';
import { LedgerError } from './errors.ts';
import { postOwed, repayDebt } from './owed.ts';
import { customerExists, ensureWallet, findEntry, insertEntry, moveWallet, type EntryRow } from './repo.ts';
import type { Purpose } from './reserve.ts';

const NUMERIC_OUT_OF_RANGE = '22003';

export interface Posted {
  entry: EntryRow;
  replayed: boolean;
}

export async function topUp(
  ctx: LedgerContext,
  { ref, customerId, amount, purpose }: { ref: string; customerId: string; amount: bigint; purpose?: Purpose },
): Promise<Posted | LedgerError> {
  if (!validAmount(amount, false)) return LedgerError.InvalidAmount;
  return ctx.run((trx) => postWithin(trx, 'top_up', `top_up:${ref}`, customerId, amount, { credits: amount }, purpose ?? {}));
}

/**
 * The same top-up inside the caller's transaction (a redeemed code's status and its credit commit
 * together, or neither); a failure throws LedgerAbort, rolling it back.
 */
export async function topUpWithin(
  trx: Knex.Transaction,
  { ref, customerId, amount, purpose }: { ref: string; customerId: string; amount: bigint; purpose?: Purpose },
): Promise<Posted> {
  if (!validAmount(amount, false)) throw new LedgerAbort(LedgerError.InvalidAmount);
  return postWithin(trx, 'top_up', `top_up:${ref}`, customerId, amount, { credits: amount }, purpose ?? {});
}

export interface Adjustment {
  ref: string;
  customerId: string;
  /** Positive credits the wallet (repaying debt first), negative debits it. */
  amount: bigint;
  reason: string;
  actor: string;
  /** A debit beyond the available balance records the rest as debt instead of being refused. */
  recordDebt?: boolean;
}

/** An operator's correction or refund. A debit never takes available below zero: refused, or the rest recorded as debt. */
export async function adjust(ctx: LedgerContext, { ref, customerId, amount, reason, actor, recordDebt }: Adjustment): Promise<Posted | LedgerError> {
  if (amount === 0n || !validAmount(amount < 0n ? -amount : amount, false)) return LedgerError.InvalidAmount;
  const deltas = amount > 0n ? { credits: amount } : { debits: -amount };
  return ctx.run((trx) => postWithin(trx, 'adjustment', `adjustment:${ref}`, customerId, amount, deltas, { reason, actor }, recordDebt === true));
}

/** Once per reference; a reused reference must match exactly. */
async function postWithin(
  trx: Knex.Transaction,
  kind: 'top_up' | 'adjustment',
  reference: string,
  customerId: string,
  amount: bigint,
  deltas: { credits?: bigint; debits?: bigint },
  purpose: Purpose,
  recordDebt = false,
): Promise<Posted> {
  const existing = await findEntry(trx, reference);
  if (existing) {
    if (existing.customer_id !== customerId || existing.amount !== amount) throw new LedgerAbort(LedgerError.ReferenceConflict);
    return { entry: existing, replayed: true };
  }
  if (!(await customerExists(trx, customerId))) throw new LedgerAbort(LedgerError.CustomerNotFound);
  await ensureWallet(trx, customerId);
  const moved = await moveWallet(trx, customerId, deltas).catch((error: unknown) => {
    // bigint out of range: the wallet's running totals cannot grow by this much.
    throw (error as { code?: unknown }).code === NUMERIC_OUT_OF_RANGE ? new LedgerAbort(LedgerError.WalletLimitExceeded) : error;
  });
  let debits = deltas.debits ?? 0n;
  let debt = 0n;
  if (!moved) {
    if (!recordDebt || !deltas.debits) throw new LedgerAbort(LedgerError.InsufficientFunds);
    ({ debited: debits, debt } = await postOwed(trx, customerId, deltas.debits));
  }
  const entry = await insertEntry(trx, {
    customer_id: customerId,
    kind,
    reference,
    amount,
    credits_delta: deltas.credits ?? 0n,
    debits_delta: debits,
    debt_delta: debt,
    purpose: debt > 0n ? { ...purpose, debt: debt.toString() } : purpose,
  });
  if (deltas.credits) await repayDebt(trx, customerId, reference); // a debt is paid before the balance is spent
  return { entry, replayed: false };
}
