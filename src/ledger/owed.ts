// Delivered usage that no hold covers any more: posted from the available balance, and what the
// balance cannot cover recorded as the customer's debt, never dropped (repaid first by the next
// credit). The owner of a hold that someone else ended (the sweeper, taking a cut-off process for
// dead, or an operator) reports the real usage late: the other's charge was a floor, and the
// difference is posted here under its own reference, once.
import type { Knex } from 'knex';
import { addKeySpend } from './key-spend.ts';
import { findEntry, insertEntry, type EntryRow } from './repo.ts';

type Wallet = { credits_posted: bigint; debits_posted: bigint; debits_pending: bigint; debt: bigint };

/**
 * Debits up to `amount` from the available balance and adds the rest to the debt (a negative
 * `amount` gives back debits posted before). Call under the caller's locks on the reservation
 * rows; this takes the wallet's.
 */
export async function postOwed(trx: Knex.Transaction, customerId: string, amount: bigint): Promise<{ debited: bigint; debt: bigint }> {
  const wallet = await trx('wallets').where({ customer_id: customerId }).forUpdate().first<Wallet | undefined>();
  const available = wallet ? wallet.credits_posted - wallet.debits_posted - wallet.debits_pending : 0n;
  const debited = amount < 0n ? amount : available <= 0n ? 0n : available < amount ? available : amount;
  const debt = amount - debited;
  if (debited !== 0n || debt !== 0n)
    await trx('wallets')
      .where({ customer_id: customerId })
      .update({
        debits_posted: trx.raw('debits_posted + ?::bigint', [debited.toString()]),
        debt: trx.raw('debt + ?::bigint', [debt.toString()]),
        updated_at: trx.fn.now(),
      });
  return { debited, debt };
}

/** Whoever wrote the entry was not the hold's owner: the sweeper, or an operator. */
export const endedByOther = (purpose: Record<string, unknown> | undefined): boolean => purpose?.swept === true || typeof purpose?.resolved_by === 'string';

export interface TrueUp {
  /** The request's reference (the hold's). */
  ref: string;
  customerId: string;
  keyId: string | null;
  reservationRef: string | null;
  /** What the other party charged (its entry's amount plus the debt it recorded). */
  floor: bigint;
  /** What the owner says was delivered. */
  actual: bigint;
  priceVersionId?: bigint | null;
  purpose: Record<string, unknown>;
}

/**
 * Posts `actual - floor` once, under `true_up:<ref>`. Returns the entry (new or the one posted
 * before), or undefined when there is no difference.
 */
export async function trueUp(trx: Knex.Transaction, input: TrueUp): Promise<{ entry: EntryRow; replayed: boolean } | undefined> {
  const reference = `true_up:${input.ref}`;
  const existing = await findEntry(trx, reference);
  if (existing) return { entry: existing, replayed: true };
  const difference = input.actual - input.floor;
  if (difference === 0n) return undefined;
  const { debited, debt } = await postOwed(trx, input.customerId, difference);
  const entry = await insertEntry(trx, {
    customer_id: input.customerId,
    kind: 'true_up',
    reference,
    reservation_ref: input.reservationRef,
    amount: debited,
    debits_delta: debited,
    debt_delta: debt,
    price_version_id: input.priceVersionId ?? null,
    purpose: { ...input.purpose, floor: input.floor.toString(), actual: input.actual.toString(), ...(debt > 0n ? { debt: debt.toString() } : {}) },
    key_id: input.keyId,
  });
  await addKeySpend(trx, input.keyId, debited + debt);
  return { entry, replayed: false };
}

/** What an operator waived on an entry (`purpose.waived`, micro-units): priced, and knowingly not charged. */
export const waivedOn = (entry: Pick<EntryRow, 'purpose'>): bigint => {
  const waived = (entry.purpose as { waived?: unknown } | null)?.waived;
  return typeof waived === 'string' && /^\d+$/.test(waived) ? BigInt(waived) : 0n;
};

/** What an entry settled in all: posted debits, the debt it recorded, and what an operator waived. */
export const chargedInAll = (entry: EntryRow): bigint => BigInt(entry.amount) + BigInt(entry.debt_delta ?? 0n) + waivedOn(entry);

/** Repays the customer's debt from the available balance after a credit (`reference`'s). */
export async function repayDebt(trx: Knex.Transaction, customerId: string, reference: string): Promise<void> {
  const wallet = await trx('wallets').where({ customer_id: customerId }).forUpdate().first<Wallet | undefined>();
  if (!wallet || wallet.debt <= 0n) return;
  const available = wallet.credits_posted - wallet.debits_posted - wallet.debits_pending;
  const paid = available < wallet.debt ? available : wallet.debt;
  if (paid <= 0n) return;
  await trx('wallets')
    .where({ customer_id: customerId })
    .update({
      debits_posted: trx.raw('debits_posted + ?::bigint', [paid.toString()]),
      debt: trx.raw('debt - ?::bigint', [paid.toString()]),
      updated_at: trx.fn.now(),
    });
  await insertEntry(trx, {
    customer_id: customerId,
    kind: 'debt_repaid',
    reference: `debt_repaid:${reference}`,
    amount: paid,
    debits_delta: paid,
    debt_delta: -paid,
    purpose: { repaid_by: reference },
  });
}
