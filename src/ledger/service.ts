// The only code that writes money tables. Every operation is one short transaction, takes effect
// once per reference however often it is repeated, and never runs across an upstream call.
import type { Knex } from 'knex';
import type { FreeQuota } from '../catalogue/types.ts';
import { applyFree, costOf, type CostLine } from '../pricing/cost.ts';
import { LedgerError } from './errors.ts';
import { holdFreeUnits, resolveFreeHold } from './free-quota.ts';
import { createWalletQueue } from './wallet-queue.ts';
import { customerExists, ensureWallet, findEntry, insertEntry, moveWallet, reserveBatch, reservedBy, reserveItem, reserveStatement, settleBatch, settledBy, settleItem, settleStatement, type EntryRow, type ReservationRow } from './repo.ts';

export type Purpose = Record<string, unknown>;

/** What a reservation or settlement costs: a fixed amount, or usage lines priced with free units. */
export type Charge = { amount: bigint } | { lines: CostLine[] };

export interface FreeAllowance {
  modelId: string;
  quota: FreeQuota;
}

export interface ReserveInput {
  ref: string;
  customerId: string;
  /** The upper bound of what the request can cost. */
  bound: Charge;
  purpose: Purpose;
  priceVersionId?: bigint | null;
  /** The model's free allowance; units are held for the reservation before money is. */
  free?: FreeAllowance;
}

export interface Reserved {
  ref: string;
  amount: bigint;
  freeUnitsHeld: bigint;
  replayed: boolean;
}

export interface Settled {
  ref: string;
  /** Posted to the customer's debits. */
  charged: bigint;
  /** What the usage cost beyond the reservation and the balance could not cover (not posted). */
  uncovered: bigint;
  freeUnitsUsed: bigint;
  freeAmount: bigint;
  replayed: boolean;
}

export interface Balance {
  credits: bigint;
  debits: bigint;
  reserved: bigint;
  available: bigint;
}

/** Expected failures come back as a LedgerError value; bugs and database failures throw. */
export interface Ledger {
  reserve(input: ReserveInput): Promise<Reserved | LedgerError>;
  /**
   * The same reserve inside the caller's transaction (a video task row and its reservation commit
   * together). A failure throws LedgerAbort, which rolls the caller's transaction back.
   */
  reserveWithin(trx: Knex.Transaction, input: ReserveInput): Promise<Reserved>;
  /** `customerId`, when the caller knows it, lets the settle share a commit with that wallet's other operations. */
  settle(input: { ref: string; charge: Charge; purpose?: Purpose; customerId?: string }): Promise<Settled | LedgerError>;
  release(input: { ref: string; purpose?: Purpose }): Promise<{ ref: string; released: bigint; replayed: boolean } | LedgerError>;
  topUp(input: { ref: string; customerId: string; amount: bigint; purpose?: Purpose }): Promise<Posted | LedgerError>;
  /** Positive credits the wallet, negative debits it (never below zero available). */
  adjust(input: { ref: string; customerId: string; amount: bigint; reason: string; actor: string }): Promise<Posted | LedgerError>;
  balance(customerId: string): Promise<Balance | LedgerError>;
  /** Newest first; pass the last id seen as `before` for the next page. */
  journal(customerId: string, page: { limit: number; before?: bigint }): Promise<{ entries: EntryRow[]; hasMore: boolean } | LedgerError>;
  reconcile(): Promise<ReconciliationMismatch[]>;
  walletCount(): Promise<number>;
}

export interface Posted {
  entry: EntryRow;
  replayed: boolean;
}

export interface ReconciliationMismatch {
  customer_id: string;
  column: 'credits_posted' | 'debits_posted' | 'debits_pending' | 'pending_reservations';
  wallet: bigint;
  expected: bigint;
}

/** Upper bound on any single amount: 10^15 micro-units (a billion currency units). */
export const MAX_AMOUNT = 1_000_000_000_000_000n;

const UNIQUE_VIOLATION = '23505';

export class LedgerAbort extends Error {
  constructor(readonly code: LedgerError) {
    super(code);
  }
}
const Abort = LedgerAbort;

const chargeAmount = (charge: Charge, freeUnits: bigint, unit: string | null) => {
  if ('amount' in charge) return { amount: charge.amount, freeUnitsUsed: 0n, freeAmount: 0n };
  if (unit === 'requests') {
    const full = costOf(charge.lines);
    return freeUnits > 0n ? { amount: 0n, freeUnitsUsed: 1n, freeAmount: full } : { amount: full, freeUnitsUsed: 0n, freeAmount: 0n };
  }
  return applyFree(charge.lines, freeUnits);
};

const unitsWanted = (charge: Charge, quota: FreeQuota): bigint =>
  'amount' in charge ? 0n : quota.unit === 'requests' ? 1n : charge.lines.reduce((sum, line) => sum + line.units, 0n);

export function createLedger(deps: { db: Knex; now?: () => Date }): Ledger {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const wallets = createWalletQueue(db, { reserve: reserveBatch, settle: settleBatch } as never);

  async function run<T>(work: (trx: Knex.Transaction) => Promise<T>, retried = false): Promise<T | LedgerError> {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (error instanceof LedgerAbort) return error.code;
      // A concurrent twin with the same reference committed first: run again, and the work finds
      // its row and replays (or reports a conflict) instead of failing.
      if (!retried && (error as { code?: unknown }).code === UNIQUE_VIOLATION) return run(work, true);
      throw error;
    }
  }

  const validAmount = (amount: bigint, allowZero = true) => (allowZero ? amount >= 0n : amount > 0n) && amount <= MAX_AMOUNT;

  return {
    async reserve(input) {
      if ('amount' in input.bound && !validAmount(input.bound.amount)) return LedgerError.InvalidAmount;
      if (!input.free) {
        // The common case in one statement; anything else (replay, shortfall) takes the long way.
        const { amount } = chargeAmount(input.bound, 0n, null);
        if (amount > 0n && validAmount(amount)) {
          const fast = { ref: input.ref, customerId: input.customerId, amount, priceVersionId: input.priceVersionId ?? null, purpose: input.purpose };
          const reserved = await wallets.run(input.customerId, { kind: 'reserve', ref: input.ref, single: reserveStatement(fast), item: reserveItem(fast) }).then(reservedBy, (error: unknown) => {
            if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false; // a replay: the long way answers it
            throw error;
          });
          if (reserved) return { ref: input.ref, amount, freeUnitsHeld: 0n, replayed: false };
        }
      }
      return run((trx) => reserveWithin(trx, input));
    },

    reserveWithin: (trx, input) => reserveWithin(trx, input),

    async settle({ ref, charge, purpose, customerId }) {
      if ('amount' in charge && !validAmount(charge.amount)) return LedgerError.InvalidAmount;
      // Without free units the charge does not depend on the reservation: try the one-statement form.
      const plain = chargeAmount(charge, 0n, null).amount;
      if (validAmount(plain)) {
        const fast = { ref, charge: plain, purpose: purpose ?? {} };
        const single = settleStatement(fast);
        const charged = settledBy(await (customerId ? wallets.run(customerId, { kind: 'settle', ref, single, item: settleItem(fast) }) : wallets.alone(single)));
        if (charged !== undefined) return { ref, charged, uncovered: 0n, freeUnitsUsed: 0n, freeAmount: 0n, replayed: false };
      }
      return run(async (trx) => {
        const reservation = await trx('reservations').where({ ref }).forUpdate().first<ReservationRow | undefined>();
        if (!reservation) throw new Abort(LedgerError.ReservationNotFound);
        if (reservation.status === 'released') throw new Abort(LedgerError.AlreadyReleased);
        if (reservation.status === 'settled') {
          const entry = (await findEntry(trx, `settle:${ref}`))!;
          const uncovered = BigInt(String((entry.purpose as { uncovered?: string }).uncovered ?? '0'));
          return { ref, charged: entry.amount, uncovered, freeUnitsUsed: entry.free_units, freeAmount: entry.free_amount, replayed: true };
        }
        const cost = chargeAmount(charge, reservation.free_units_held, reservation.free_unit);
        if (!validAmount(cost.amount)) throw new Abort(LedgerError.InvalidAmount);
        // Lock order everywhere: reservation, free-quota row, wallet (reserve takes the last two in
        // the same order); the reverse order deadlocks parallel requests of one customer.
        await settleFreeHold(trx, reservation, cost.freeUnitsUsed);
        // The extra beyond the reservation is posted only if the balance covers it.
        let charged = cost.amount;
        if (!(await moveWallet(trx, reservation.customer_id, { pending: -reservation.amount, debits: charged }))) {
          charged = reservation.amount;
          await moveWallet(trx, reservation.customer_id, { pending: -reservation.amount, debits: charged });
        }
        const uncovered = cost.amount - charged;
        await trx('reservations').where({ ref }).update({ status: 'settled', resolved_at: trx.fn.now() });
        await insertEntry(trx, {
          customer_id: reservation.customer_id,
          kind: 'settle',
          reference: `settle:${ref}`,
          reservation_ref: ref,
          amount: charged,
          debits_delta: charged,
          pending_delta: -reservation.amount,
          free_units: cost.freeUnitsUsed,
          free_amount: cost.freeAmount,
          price_version_id: reservation.price_version_id,
          purpose: { ...reservation.purpose, ...purpose, reserved: reservation.amount.toString(), ...(uncovered > 0n ? { uncovered: uncovered.toString() } : {}) },
        });
        return { ref, charged, uncovered, freeUnitsUsed: cost.freeUnitsUsed, freeAmount: cost.freeAmount, replayed: false };
      });
    },

    async release({ ref, purpose }) {
      return run(async (trx) => {
        const reservation = await trx('reservations').where({ ref }).forUpdate().first<ReservationRow | undefined>();
        if (!reservation) throw new Abort(LedgerError.ReservationNotFound);
        if (reservation.status === 'settled') throw new Abort(LedgerError.AlreadySettled);
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
      });
    },

    async topUp({ ref, customerId, amount, purpose }) {
      if (!validAmount(amount, false)) return LedgerError.InvalidAmount;
      return postOnce('top_up', `top_up:${ref}`, customerId, amount, { credits: amount }, purpose ?? {});
    },

    async adjust({ ref, customerId, amount, reason, actor }) {
      if (amount === 0n || !validAmount(amount < 0n ? -amount : amount, false)) return LedgerError.InvalidAmount;
      const deltas = amount > 0n ? { credits: amount } : { debits: -amount };
      return postOnce('adjustment', `adjustment:${ref}`, customerId, amount, deltas, { reason, actor });
    },

    async balance(customerId) {
      const wallet = await db('wallets').where({ customer_id: customerId }).first<{ credits_posted: bigint; debits_posted: bigint; debits_pending: bigint } | undefined>();
      if (!wallet && !(await customerExists(db, customerId))) return LedgerError.CustomerNotFound;
      const credits = wallet?.credits_posted ?? 0n;
      const debits = wallet?.debits_posted ?? 0n;
      const reserved = wallet?.debits_pending ?? 0n;
      return { credits, debits, reserved, available: credits - debits - reserved };
    },

    async journal(customerId, { limit, before }) {
      if (!(await customerExists(db, customerId))) return LedgerError.CustomerNotFound;
      const rows: EntryRow[] = await db('ledger_entries')
        .where({ customer_id: customerId })
        .modify((q) => (before === undefined ? q : q.where('id', '<', before.toString())))
        .orderBy('id', 'desc')
        .limit(limit + 1);
      return { entries: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    async walletCount() {
      const [row] = await db('wallets').count<Array<{ n: bigint | string | number }>>('* as n');
      return Number(row?.n ?? 0);
    },

    async reconcile() {
      const { rows } = await db.raw<{ rows: Array<{ customer_id: string; column: ReconciliationMismatch['column']; wallet: string; expected: string }> }>(RECONCILE_SQL);
      return rows.map((r) => ({ customer_id: r.customer_id, column: r.column, wallet: BigInt(r.wallet), expected: BigInt(r.expected) }));
    },
  };


  async function reserveWithin(trx: Knex.Transaction, input: ReserveInput): Promise<Reserved> {
    if ('amount' in input.bound && !validAmount(input.bound.amount)) throw new Abort(LedgerError.InvalidAmount);
    const existing = await trx('reservations').where({ ref: input.ref }).first<ReservationRow | undefined>();
    if (existing) {
      // The first reserve's amount follows from its bound and the free units it held, so a replay
      // with another bound (or customer) is a different request under a reused reference.
      const replayedAmount = chargeAmount(input.bound, existing.free_units_held, existing.free_unit).amount;
      if (existing.customer_id !== input.customerId || replayedAmount !== existing.amount) throw new Abort(LedgerError.ReferenceConflict);
      return { ref: existing.ref, amount: existing.amount, freeUnitsHeld: existing.free_units_held, replayed: true };
    }
    if (!(await customerExists(trx, input.customerId))) throw new Abort(LedgerError.CustomerNotFound);
    const hold = input.free
      ? await holdFreeUnits(trx, { customerId: input.customerId, modelId: input.free.modelId, quota: input.free.quota, wanted: unitsWanted(input.bound, input.free.quota), now: now() })
      : undefined;
    const { amount } = chargeAmount(input.bound, hold?.units ?? 0n, hold?.unit ?? null);
    if (!validAmount(amount)) throw new Abort(LedgerError.InvalidAmount);
    await ensureWallet(trx, input.customerId);
    if (!(await moveWallet(trx, input.customerId, { pending: amount }))) throw new Abort(LedgerError.InsufficientFunds);
    await trx('reservations').insert({
      ref: input.ref,
      customer_id: input.customerId,
      amount: amount.toString(),
      free_model_id: hold?.modelId ?? null,
      free_unit: hold?.unit ?? null,
      free_period_start: hold?.periodStart ?? null,
      free_units_held: (hold?.units ?? 0n).toString(),
      price_version_id: input.priceVersionId?.toString() ?? null,
      purpose: JSON.stringify(input.purpose),
    });
    await insertEntry(trx, {
      customer_id: input.customerId,
      kind: 'reserve',
      reference: `reserve:${input.ref}`,
      reservation_ref: input.ref,
      amount,
      pending_delta: amount,
      free_units: hold?.units ?? 0n,
      price_version_id: input.priceVersionId ?? null,
      purpose: input.purpose,
    });
    return { ref: input.ref, amount, freeUnitsHeld: hold?.units ?? 0n, replayed: false };
  }

  /** A posted top-up or adjustment: once per reference; a reused reference must match exactly. */
  async function postOnce(
    kind: 'top_up' | 'adjustment',
    reference: string,
    customerId: string,
    amount: bigint,
    deltas: { credits?: bigint; debits?: bigint },
    purpose: Purpose,
  ) {
    return run(async (trx) => {
      const existing = await findEntry(trx, reference);
      if (existing) {
        if (existing.customer_id !== customerId || existing.amount !== amount) throw new Abort(LedgerError.ReferenceConflict);
        return { entry: existing, replayed: true };
      }
      if (!(await customerExists(trx, customerId))) throw new Abort(LedgerError.CustomerNotFound);
      await ensureWallet(trx, customerId);
      if (!(await moveWallet(trx, customerId, deltas))) throw new Abort(LedgerError.InsufficientFunds);
      const entry = await insertEntry(trx, {
        customer_id: customerId,
        kind,
        reference,
        amount,
        credits_delta: deltas.credits ?? 0n,
        debits_delta: deltas.debits ?? 0n,
        purpose,
      });
      return { entry, replayed: false };
    });
  }
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

/** Every wallet column must equal the sum of its journal deltas, and pending the open reservations. */
const RECONCILE_SQL = `
with sums as (
  select w.customer_id,
         w.credits_posted, w.debits_posted, w.debits_pending,
         coalesce((select sum(credits_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as credits_expected,
         coalesce((select sum(debits_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as debits_expected,
         coalesce((select sum(pending_delta) from ledger_entries e where e.customer_id = w.customer_id), 0)::bigint as pending_expected,
         coalesce((select sum(amount) from reservations r where r.customer_id = w.customer_id and r.status = 'pending'), 0)::bigint as open_reservations
  from wallets w
)
select customer_id, 'credits_posted' as column, credits_posted::text as wallet, credits_expected::text as expected from sums where credits_posted <> credits_expected
union all
select customer_id, 'debits_posted', debits_posted::text, debits_expected::text from sums where debits_posted <> debits_expected
union all
select customer_id, 'debits_pending', debits_pending::text, pending_expected::text from sums where debits_pending <> pending_expected
union all
select customer_id, 'pending_reservations', debits_pending::text, open_reservations::text from sums where debits_pending <> open_reservations
order by 1, 2`;
