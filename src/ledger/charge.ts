// One charge of a request that drew from a credit grant, posted alone: the slow path behind the
// batched flush (a grant gone by then, a batch that could not stand, an outbox replay, the sweeper).
// Takes effect once per request however often it is repeated.
import type { Knex } from 'knex';
import type { LedgerContext } from './context.ts';
import { LedgerAbort, validAmount } from './context.ts';
import { LedgerError } from './errors.ts';
import { addKeySpend } from './key-spend.ts';
import { chargedInAll, endedByOther, postOwed, trueUp } from './owed.ts';
import { findEntry, insertEntry, moveWallet, type EntryRow, type ReservationRow } from './repo.ts';

export interface ChargeInput {
  /** The request id; the journal reference is `charge:<ref>`. */
  ref: string;
  grantRef: string;
  customerId: string;
  amount: bigint;
  purpose?: Record<string, unknown>;
}

export interface Charged {
  ref: string;
  charged: bigint;
  /** What was not posted: beyond the draw's room in its grant (`purpose.uncovered`), or recorded as debt. */
  uncovered: bigint;
  /** Of the charge, what the balance could not cover and is recorded as the customer's debt. */
  debt: bigint;
  replayed: boolean;
  /** The grant's hold paid it (false: the grant was gone and the balance paid it). */
  fromGrant: boolean;
}

export async function charge(ctx: LedgerContext, input: ChargeInput): Promise<Charged | LedgerError> {
  if (!validAmount(input.amount)) return LedgerError.InvalidAmount;
  const keyId = typeof input.purpose?.key_id === 'string' ? input.purpose.key_id : null;
  return ctx.run(async (trx) => {
    const reference = `charge:${input.ref}`;
    const existing = await findEntry(trx, reference);
    if (existing) return replayOrTrueUp(trx, input, existing, keyId);
    // Lock order as everywhere: the reservation row, then the wallet.
    const grant = await trx('reservations').where({ ref: input.grantRef }).forUpdate().first<ReservationRow | undefined>();
    if (grant && grant.customer_id !== input.customerId) throw new LedgerAbort(LedgerError.ReferenceConflict);
    if (grant?.status === 'pending' && grant.amount >= input.amount) {
      await moveWallet(trx, input.customerId, { pending: -input.amount, debits: input.amount });
      await trx('reservations')
        .where({ ref: input.grantRef })
        .update({ amount: trx.raw('amount - ?::bigint', [input.amount.toString()]) });
      await insertEntry(trx, {
        customer_id: input.customerId,
        kind: 'charge',
        reference,
        reservation_ref: input.grantRef,
        amount: input.amount,
        debits_delta: input.amount,
        pending_delta: -input.amount,
        purpose: input.purpose ?? {},
        key_id: keyId,
      });
      await addKeySpend(trx, keyId, input.amount);
      return { ref: input.ref, charged: input.amount, uncovered: 0n, debt: 0n, replayed: false, fromGrant: true };
    }
    // The grant was returned (or swept) before this charge landed: post it from the balance, and
    // what the balance cannot cover as the customer's debt.
    const { debited, debt } = await postOwed(trx, input.customerId, input.amount);
    await insertEntry(trx, {
      customer_id: input.customerId,
      kind: 'charge',
      reference,
      reservation_ref: input.grantRef,
      amount: debited,
      debits_delta: debited,
      debt_delta: debt,
      purpose: { ...input.purpose, grant_gone: true, ...(debt > 0n ? { debt: debt.toString() } : {}) },
      key_id: keyId,
    });
    await addKeySpend(trx, keyId, debited);
    return { ref: input.ref, charged: debited, uncovered: debt, debt, replayed: false, fromGrant: false };
  });
}

/**
 * The request's charge is in the journal already. Written by its owner: a replay. Written by the
 * sweeper (which took this process for dead) and now reported by the owner: the sweeper's was a
 * floor, and the difference to what was delivered is posted on its own.
 */
async function replayOrTrueUp(trx: Knex.Transaction, input: ChargeInput, existing: EntryRow, keyId: string | null): Promise<Charged> {
  const uncoveredBefore = BigInt(String((existing.purpose as { uncovered?: string }).uncovered ?? '0'));
  const replay = { ref: input.ref, replayed: true, fromGrant: existing.pending_delta !== 0n };
  if (!endedByOther(existing.purpose) || endedByOther(input.purpose))
    return { ...replay, charged: existing.amount, uncovered: uncoveredBefore, debt: BigInt(existing.debt_delta) };
  const actual = input.amount + BigInt(String(input.purpose?.uncovered ?? '0'));
  const floor = chargedInAll(existing);
  const posted = await trueUp(trx, {
    ref: input.ref,
    customerId: input.customerId,
    keyId,
    reservationRef: input.grantRef,
    floor,
    actual,
    purpose: { ...input.purpose, late_report: true },
    floorPurpose: existing.purpose,
  });
  const debt = BigInt(existing.debt_delta) + (posted ? BigInt(posted.entry.debt_delta) : 0n);
  const charged = existing.amount + (posted ? BigInt(posted.entry.amount) : 0n);
  return { ref: input.ref, charged, uncovered: debt, debt, replayed: posted?.replayed ?? false, fromGrant: false };
}
