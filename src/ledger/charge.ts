// One charge of a request that drew from a credit grant, posted alone: the slow path behind the
// batched flush (a grant gone by then, a batch that could not stand, an outbox replay, the sweeper).
// Takes effect once per request however often it is repeated.
import type { Knex } from 'knex';
import type { LedgerContext } from './context.ts';
import { LedgerAbort, validAmount, withPriced } from './context.ts';
import { LedgerError } from './errors.ts';
import { addKeySpend } from './key-spend.ts';
import { chargedInAll, endedByOther, postOwed, trueUp } from './owed.ts';
import { findEntry, insertEntry, moveWallet, type EntryRow, type ReservationRow } from './repo.ts';

export interface ChargeInput {
  /** The request id; the journal reference is `charge:<ref>`. */
  ref: string;
  grantRef: string;
  customerId: string;
  /** What the request's delivered usage cost, in all: charged in full. */
  amount: bigint;
  /**
   * Of `amount`, what the grant's hold pays (the draw's bound and the grant's free room); the
   * rest is posted from the available balance, then recorded as debt. Default: all of it.
   */
  fromGrant?: bigint;
  /** The price version the usage was priced at (reconciliation prices it again at that version). */
  priceVersionId?: bigint | null;
  purpose?: Record<string, unknown>;
}

export interface Charged {
  ref: string;
  /** Posted to the customer's debits: from the grant's hold, and beyond it from the available balance. */
  charged: bigint;
  /** What the balance could not cover, recorded as the customer's debt: charged + debt is what the usage cost. */
  debt: bigint;
  replayed: boolean;
  /** The grant's hold paid its part (false: the grant was gone and the balance paid it all). */
  fromGrant: boolean;
}

export async function charge(ctx: LedgerContext, input: ChargeInput): Promise<Charged | LedgerError> {
  const held = input.fromGrant ?? input.amount;
  if (!validAmount(input.amount) || held < 0n || held > input.amount) return LedgerError.InvalidAmount;
  const keyId = typeof input.purpose?.key_id === 'string' ? input.purpose.key_id : null;
  const purpose = withPriced(input.purpose, { amount: input.amount });
  return ctx.run(async (trx) => {
    const reference = `charge:${input.ref}`;
    const existing = await findEntry(trx, reference);
    if (existing) return replayOrTrueUp(trx, { ...input, purpose }, existing, keyId);
    // Lock order as everywhere: the reservation row, then the wallet.
    const grant = await trx('reservations').where({ ref: input.grantRef }).forUpdate().first<ReservationRow | undefined>();
    if (grant && grant.customer_id !== input.customerId) throw new LedgerAbort(LedgerError.ReferenceConflict);
    // The grant pays its part; what it cannot pay (usage beyond the draw's room), or all of it once
    // the grant was returned or swept, is posted from the balance, and what the balance cannot
    // cover becomes the customer's debt. One entry either way.
    const covered = grant?.status === 'pending' && grant.amount >= held;
    const fromGrant = covered ? held : 0n;
    if (fromGrant > 0n) {
      await moveWallet(trx, input.customerId, { pending: -fromGrant, debits: fromGrant });
      await trx('reservations')
        .where({ ref: input.grantRef })
        .update({ amount: trx.raw('amount - ?::bigint', [fromGrant.toString()]) });
    }
    const owed = input.amount > fromGrant ? await postOwed(trx, input.customerId, input.amount - fromGrant) : { debited: 0n, debt: 0n };
    const charged = fromGrant + owed.debited;
    await insertEntry(trx, {
      customer_id: input.customerId,
      kind: 'charge',
      reference,
      reservation_ref: input.grantRef,
      amount: charged,
      debits_delta: charged,
      pending_delta: -fromGrant,
      debt_delta: owed.debt,
      price_version_id: input.priceVersionId ?? null,
      purpose: { ...purpose, ...(covered ? {} : { grant_gone: true }), ...(owed.debt > 0n ? { debt: owed.debt.toString() } : {}) },
      key_id: keyId,
    });
    await addKeySpend(trx, keyId, charged + owed.debt);
    return { ref: input.ref, charged, debt: owed.debt, replayed: false, fromGrant: covered };
  });
}

/**
 * The request's charge is in the journal already. Written by its owner: a replay. Written by the
 * sweeper (which took this process for dead) and now reported by the owner: the sweeper's was a
 * floor, and the difference to what was delivered is posted on its own.
 */
async function replayOrTrueUp(trx: Knex.Transaction, input: ChargeInput, existing: EntryRow, keyId: string | null): Promise<Charged> {
  const replay = { ref: input.ref, replayed: true, fromGrant: existing.pending_delta !== 0n };
  if (!endedByOther(existing.purpose) || endedByOther(input.purpose)) return { ...replay, charged: existing.amount, debt: BigInt(existing.debt_delta) };
  const posted = await trueUp(trx, {
    ref: input.ref,
    customerId: input.customerId,
    keyId,
    reservationRef: input.grantRef,
    floor: chargedInAll(existing),
    actual: input.amount,
    priceVersionId: input.priceVersionId ?? null,
    purpose: { ...input.purpose, late_report: true },
  });
  const debt = BigInt(existing.debt_delta) + (posted ? BigInt(posted.entry.debt_delta) : 0n);
  const charged = existing.amount + (posted ? BigInt(posted.entry.amount) : 0n);
  return { ref: input.ref, charged, debt, replayed: posted?.replayed ?? false, fromGrant: false };
}
