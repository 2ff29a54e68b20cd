// Ending a reservation: settle (post what was used, release the rest) or release (post nothing).
// Each takes effect once per reference however often it is repeated.
import type { Knex } from 'knex';
import { chargeAmount, LedgerAbort, validAmount, withPriced, type Charge, type LedgerContext } from './context.ts';
import { LedgerError } from './errors.ts';
import { resolveFreeHold } from './free-quota.ts';
import { addKeySpend } from './key-spend.ts';
import { chargedInAll, endedByOther, postOwed, trueUp } from './owed.ts';
import { findEntry, insertEntry, moveWallet, type ReservationRow } from './repo.ts';
import type { Purpose } from './reserve.ts';
import { settledBy, settleItem, settleStatement } from './statements.ts';

export interface SettleInput {
  ref: string;
  charge: Charge;
  purpose?: Purpose;
  /** When the caller knows it, the settle shares a commit with that wallet's other operations. */
  customerId?: string;
}

export interface Settled {
  ref: string;
  /** Posted to the customer's debits: from the reservation, and beyond it from the available balance. */
  charged: bigint;
  /** What the balance could not cover, recorded as the customer's debt: charged + debt is what the usage cost. */
  debt: bigint;
  freeUnitsUsed: bigint;
  freeAmount: bigint;
  replayed: boolean;
}

export interface Released {
  ref: string;
  released: bigint;
  replayed: boolean;
}

export async function settle(ctx: LedgerContext, input: SettleInput): Promise<Settled | LedgerError> {
  const { ref, charge, customerId } = input;
  if ('amount' in charge && !validAmount(charge.amount)) return LedgerError.InvalidAmount;
  const purpose = withPriced(input.purpose, charge);
  // Without free units the charge does not depend on the reservation: try the one-statement form.
  const plain = chargeAmount(charge, 0n, null).amount;
  if (validAmount(plain)) {
    const fast = { ref, charge: plain, purpose };
    const single = settleStatement(fast);
    const charged = settledBy(
      await (customerId ? ctx.wallets.run(customerId, { kind: 'settle', ref, single, item: settleItem(fast) }) : ctx.wallets.alone(single)),
    );
    if (charged !== undefined) return { ref, charged, debt: 0n, freeUnitsUsed: 0n, freeAmount: 0n, replayed: false };
  }
  return ctx.run(async (trx) => {
    const reservation = await trx('reservations').where({ ref }).forUpdate().first<ReservationRow | undefined>();
    if (!reservation) throw new LedgerAbort(LedgerError.ReservationNotFound);
    if (reservation.status !== 'pending') return lateOrReplay(trx, reservation, charge, purpose);
    const cost = chargeAmount(charge, reservation.free_units_held, reservation.free_unit);
    if (!validAmount(cost.amount)) throw new LedgerAbort(LedgerError.InvalidAmount);
    // Lock order everywhere: reservation, key, free-quota row, wallet (reserve takes the last
    // three in the same order); the reverse order deadlocks parallel requests of one customer.
    await settleFreeHold(trx, reservation, cost.freeUnitsUsed);
    // What was delivered is charged in full, never capped: the reservation first, then the
    // available balance, then the customer's debt. (A key's spend limit refuses the next request;
    // it never reduces a delivered one.) Posting at most the reservation keeps available >= 0.
    const fromHold = cost.amount < reservation.amount ? cost.amount : reservation.amount;
    await moveWallet(trx, reservation.customer_id, { pending: -reservation.amount, debits: fromHold });
    const owed = cost.amount > fromHold ? await postOwed(trx, reservation.customer_id, cost.amount - fromHold) : { debited: 0n, debt: 0n };
    const charged = fromHold + owed.debited;
    await trx('reservations').where({ ref }).update({ status: 'settled', resolved_at: trx.fn.now() });
    await insertEntry(trx, {
      customer_id: reservation.customer_id,
      kind: 'settle',
      reference: `settle:${ref}`,
      reservation_ref: ref,
      amount: charged,
      debits_delta: charged,
      pending_delta: -reservation.amount,
      debt_delta: owed.debt,
      free_units: cost.freeUnitsUsed,
      free_amount: cost.freeAmount,
      price_version_id: reservation.price_version_id,
      purpose: { ...reservation.purpose, ...purpose, reserved: reservation.amount.toString(), ...(owed.debt > 0n ? { debt: owed.debt.toString() } : {}) },
      key_id: reservation.key_id,
    });
    await addKeySpend(trx, reservation.key_id, charged + owed.debt);
    return { ref, charged, debt: owed.debt, freeUnitsUsed: cost.freeUnitsUsed, freeAmount: cost.freeAmount, replayed: false };
  });
}

/**
 * A settle for a reservation already ended. Ended by its owner: a replay (or, for a release, a
 * refusal). Ended by someone else (the sweeper at the owner's last checkpoint, an operator) and
 * now reported by the owner: that end was a floor, and the difference to what was delivered is
 * posted on its own reference (priced without free units: the other's end gave them back).
 */
async function lateOrReplay(trx: Knex.Transaction, reservation: ReservationRow, charge: Charge, purpose: Purpose | undefined): Promise<Settled> {
  const { ref } = reservation;
  const entry = (await findEntry(trx, `${reservation.status === 'settled' ? 'settle' : 'release'}:${ref}`))!;
  const late = endedByOther(entry.purpose) && !endedByOther(purpose);
  if (!late && reservation.status === 'released') throw new LedgerAbort(LedgerError.AlreadyReleased);
  const settled = reservation.status === 'settled';
  const floor = settled ? chargedInAll(entry) : 0n;
  const replay = {
    ref,
    charged: settled ? entry.amount : 0n,
    debt: settled ? BigInt(entry.debt_delta) : 0n,
    freeUnitsUsed: entry.free_units,
    freeAmount: entry.free_amount,
  };
  if (!late) return { ...replay, replayed: true };
  const posted = await trueUp(trx, {
    ref,
    customerId: reservation.customer_id,
    keyId: reservation.key_id,
    reservationRef: ref,
    floor,
    actual: chargeAmount(charge, 0n, null).amount,
    priceVersionId: reservation.price_version_id,
    purpose: { ...reservation.purpose, ...purpose, late_report: true },
  });
  const debt = replay.debt + (posted ? BigInt(posted.entry.debt_delta) : 0n);
  return { ...replay, charged: replay.charged + (posted ? BigInt(posted.entry.amount) : 0n), debt, replayed: posted?.replayed ?? false };
}

export async function release(ctx: LedgerContext, input: { ref: string; purpose?: Purpose }): Promise<Released | LedgerError> {
  return ctx.run((trx) => releaseWithin(trx, input));
}

/**
 * The release in the caller's transaction, so it commits with the caller's own change (a waiting
 * video task cancelled): both or neither. Throws LedgerAbort, which rolls the transaction back.
 */
export async function releaseWithin(trx: Knex.Transaction, { ref, purpose }: { ref: string; purpose?: Purpose }): Promise<Released> {
  const reservation = await trx('reservations').where({ ref }).forUpdate().first<ReservationRow | undefined>();
  if (!reservation) throw new LedgerAbort(LedgerError.ReservationNotFound);
  if (reservation.status === 'settled') throw new LedgerAbort(LedgerError.AlreadySettled);
  if (reservation.status === 'released') return { ref, released: reservation.amount, replayed: true };
  await settleFreeHold(trx, reservation, 0n); // before the wallet: see the lock order in settle
  await moveWallet(trx, reservation.customer_id, { pending: -reservation.amount });
  await trx('reservations').where({ ref }).update({ status: 'released', resolved_at: trx.fn.now() });
  await insertEntry(trx, {
    customer_id: reservation.customer_id,
    kind: 'release',
    reference: `release:${ref}`,
    reservation_ref: ref,
    amount: reservation.amount,
    pending_delta: -reservation.amount,
    price_version_id: reservation.price_version_id,
    purpose: { ...reservation.purpose, ...purpose },
  });
  return { ref, released: reservation.amount, replayed: false };
}

/** Spends `used` of the reservation's held free units and returns the rest to the allowance. */
async function settleFreeHold(trx: Knex.Transaction, reservation: ReservationRow, used: bigint): Promise<void> {
  if (!reservation.free_model_id) return;
  await resolveFreeHold(trx, {
    customerId: reservation.customer_id,
    modelId: reservation.free_model_id,
    periodStart: String(reservation.free_period_start), // DATE columns come back as 'YYYY-MM-DD' (src/db/knex.ts)
    held: reservation.free_units_held,
    used,
  });
}
