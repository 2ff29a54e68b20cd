// A request's hold on the balance, with one owner and one end. A hold is a draw from this
// process's credit grant for the customer (no database round trip), or, when no grant can cover
// it (a small balance, free units to hold), a reservation of its own. `scope` makes the end
// structural: whatever the work does (returns, throws, forgets), the hold is settled or released
// exactly once, durably (the settler outlives database outages). While a hold is open its progress
// (what was delivered, priced) is checkpointed on every heartbeat tick, so if this process dies
// the sweeper charges what was delivered rather than nothing or everything.
import type { Knex } from 'knex';
import { LeaseNotRenewedError } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';
import { type Charge, chargeAmount, KeyLimitRefusal, type Ledger, LedgerError, periodStart, type RateState, type ReserveInput } from '../ledger/index.ts';
import type { Grants } from './grants.ts';
import type { Instance } from './instance.ts';
import { createSettlingTracker } from './settling.ts';
import type { SettlementResult, Settler } from './settler.ts';

export interface Hold {
  readonly ref: string;
  readonly customerId: string;
  /** What is held: the request's upper bound, after free units. */
  readonly amount: bigint;
  /** Free units of the model's allowance held beside the money (a reservation of its own only). */
  readonly freeUnitsHeld: bigint;
  /** A draw from this process's credit grant, or a reservation of its own. */
  readonly source: 'grant' | 'reservation';
  readonly ended: boolean;
  /** The key's rate-limit state after this request (keys with a rate limit). */
  readonly rate: RateState | null;
  /** Records what was delivered so far, priced; the last checkpoint is charged if the owner dies. */
  checkpoint(charge: bigint, usage?: Record<string, unknown>): void;
  settle(charge: Charge, purpose?: Record<string, unknown>): Promise<SettlementResult>;
  release(reason: string): Promise<SettlementResult>;
}

export type HoldInput = Omit<ReserveInput, 'owner' | 'kind'>;

/** `limits`: the key has limits; its holds never draw from a grant (see src/ledger/key-limits.ts). */
export interface Holds {
  open(input: HoldInput & { limits?: false }): Promise<Hold | LedgerError>;
  open(input: HoldInput): Promise<Hold | LedgerError | KeyLimitRefusal>;
  /** Opens a hold and runs `work` with it; a hold `work` left open is ended here (see above). */
  scope<T>(input: HoldInput, work: (hold: Hold) => Promise<T>): Promise<T | LedgerError | KeyLimitRefusal>;
  /** Holds still open in this process. */
  live(): number;
  /** Writes changed checkpoints (the heartbeat tick calls it). */
  flushCheckpoints(): Promise<void>;
}

interface ReservationHold extends Hold {
  ended: boolean;
  progress: { charge: bigint; usage?: Record<string, unknown> } | undefined;
  dirty: boolean;
}

/** How long a refused request waits for grants (ours, other processes') to give balance back. */
const RECALL_WAIT_MS = 2_500;

export function createHolds(deps: { db: Knex; ledger: Ledger; settler: Settler; instance: Instance; logger: Logger; grants?: Grants }): Holds {
  const reservations = new Map<string, ReservationHold>();
  let draws = 0;
  /** Free allowances found used up, until their period ends: their models can use grants. */
  const freeUsedUp = new Map<string, number>();
  const settling = createSettlingTracker();

  // Holds are object literals with `ended` a plain field, not a getter: a literal with an accessor
  // gets a hidden class of its own per request.
  function reservationHold(input: HoldInput, amount: bigint, freeUnitsHeld: bigint, rate: RateState | null): ReservationHold {
    const end = (settlement: Parameters<Settler['submit']>[0]) => {
      if (hold.ended) return Promise.resolve(LedgerError.AlreadySettled as SettlementResult);
      hold.ended = true;
      reservations.delete(input.ref);
      const done = deps.settler.submit(settlement);
      if (input.limits) settling.track(keyOf(input), done);
      return done;
    };
    const hold: ReservationHold = {
      ref: input.ref,
      customerId: input.customerId,
      amount,
      freeUnitsHeld,
      source: 'reservation',
      rate,
      progress: undefined,
      dirty: false,
      ended: false,
      checkpoint(charge, usage) {
        if (hold.ended) return;
        hold.progress = { charge: charge < amount ? charge : amount, ...(usage ? { usage } : {}) };
        hold.dirty = true;
      },
      settle: (charge, purpose) => end({ kind: 'settle', ref: input.ref, customerId: input.customerId, charge, ...(purpose ? { purpose } : {}) }),
      release: (reason) => end({ kind: 'release', ref: input.ref, purpose: { reason } }),
    };
    return hold;
  }

  function drawHold(draw: NonNullable<Awaited<ReturnType<Grants['draw']>>>, keyId: string | null, priceVersionId: bigint | null): Hold {
    draws++;
    const end = () => {
      if (hold.ended) return false;
      hold.ended = true;
      draws--;
      return true;
    };
    const hold: Hold & { ended: boolean } = {
      ref: draw.ref,
      customerId: draw.customerId,
      amount: draw.bound,
      freeUnitsHeld: 0n,
      source: 'grant',
      rate: null,
      ended: false,
      checkpoint: (charge, usage) => draw.checkpoint(charge, usage),
      async settle(charge, purpose) {
        if (!end()) return LedgerError.AlreadySettled;
        const amount = chargeAmount(charge, 0n, null).amount;
        // The charge entry names the key, as a settle entry does: the key's spend is reported from it.
        const result = await draw.charge(amount, keyId ? { key_id: keyId, ...purpose } : (purpose ?? {}), priceVersionId);
        return {
          ref: draw.ref,
          charged: result.charged,
          debt: result.debt,
          freeUnitsUsed: 0n,
          freeAmount: 0n,
          replayed: result.replayed,
        };
      },
      async release() {
        if (!end()) return LedgerError.AlreadyReleased;
        draw.release();
        return { ref: draw.ref, released: draw.bound, replayed: false };
      },
    };
    return hold;
  }

  const freeKey = (input: HoldInput) => `${input.customerId} ${input.free!.modelId}`;

  async function reserve(input: HoldInput): Promise<Hold | LedgerError | KeyLimitRefusal> {
    const usedUp = input.free && (freeUsedUp.get(freeKey(input)) ?? 0) > Date.now();
    const free = input.free && !usedUp ? { free: input.free } : {};
    const attempt = () => deps.ledger.reserve({ ...input, ...free, free: free.free, kind: 'request', owner: deps.instance.id });
    let reserved = await attempt();
    // At its concurrency limit perhaps only because our own settles of the key have not landed
    // yet: once they have, one more try.
    if (reserved instanceof KeyLimitRefusal && reserved.limit === 'max_concurrent' && (await settling.drain(keyOf(input)!, 2_000))) reserved = await attempt();
    if (typeof reserved === 'string' || reserved instanceof KeyLimitRefusal) return reserved;
    if (input.free && !usedUp && reserved.freeUnitsHeld === 0n) freeUsedUp.set(freeKey(input), nextPeriod(input.free.quota.period));
    const hold = reservationHold(input, reserved.amount, reserved.freeUnitsHeld, reserved.rate ?? null);
    reservations.set(input.ref, hold);
    return hold;
  }

  async function open(input: HoldInput): Promise<Hold | LedgerError | KeyLimitRefusal> {
    // A lease not renewed is a promise to stop: no new hold and no draw (see ./instance.ts).
    if (deps.instance.fenced()) throw new LeaseNotRenewedError();
    const freeToHold = input.free && (freeUsedUp.get(freeKey(input)) ?? 0) <= Date.now();
    // A key with limits reserves on its own: its limits are checked, exactly, where reservations are made.
    if (deps.grants && !freeToHold && !input.limits) {
      const bound = chargeAmount(input.bound, 0n, null).amount;
      const draw = await deps.grants.draw(input.customerId, input.ref, bound, input.purpose);
      if (draw) return drawHold(draw, keyOf(input), input.priceVersionId ?? null);
    }
    const first = await reserve(input);
    if (first !== LedgerError.InsufficientFunds || !deps.grants) return first;
    // The balance may be held by grants (this process's or another's): ask for it back, retry.
    const freed = await deps.grants.shrink(input.customerId).catch(() => false);
    const { rows } = await deps.db.raw<{ rows: unknown[] }>(
      `update reservations set purpose = purpose || '{"recall": true}'::jsonb
        where customer_id = ? and kind = 'grant' and status = 'pending' and owner <> ? returning ref`,
      [input.customerId, deps.instance.id],
    );
    if (!freed && rows.length === 0) return first;
    for (const deadline = Date.now() + RECALL_WAIT_MS; ;) {
      const retry = await reserve(input);
      if (retry !== LedgerError.InsufficientFunds || Date.now() > deadline) return retry;
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  return {
    open: open as Holds['open'],
    async scope<T>(input: HoldInput, work: (hold: Hold) => Promise<T>) {
      const hold = await open(input);
      if (typeof hold === 'string' || hold instanceof KeyLimitRefusal) return hold;
      try {
        return await work(hold);
      } finally {
        if (!hold.ended) {
          const delivered = reservations.get(hold.ref)?.progress;
          deps.logger.warn({ ref: hold.ref, delivered: Boolean(delivered) }, 'hold left open by its request; ending it');
          void (delivered ? hold.settle({ amount: delivered.charge }, { ending: 'abandoned', estimated: true }) : hold.release('abandoned'));
        }
      }
    },
    live: () => reservations.size + draws,
    async flushCheckpoints() {
      const dirty = [...reservations.values()].filter((hold) => hold.dirty && hold.progress);
      for (const hold of dirty) hold.dirty = false;
      const at = new Date().toISOString();
      const rows = [
        ...dirty.map((hold) => ({ ref: hold.ref, progress: { charge: hold.progress!.charge.toString(), usage: hold.progress!.usage ?? null, at } })),
        ...(deps.grants?.checkpoints() ?? []).map((grant) => ({ ref: grant.ref, progress: { ...grant.progress, at } })),
      ];
      if (rows.length === 0) return;
      try {
        await deps.db.raw(
          `update reservations r set progress = v.progress
             from jsonb_to_recordset(?::jsonb) as v(ref text, progress jsonb)
            where r.ref = v.ref and r.status = 'pending'`,
          [JSON.stringify(rows)],
        );
      } catch (error) {
        for (const hold of dirty) hold.dirty = true;
        throw error;
      }
    },
  };
}

const keyOf = (input: HoldInput): string | null => (typeof input.purpose.key_id === 'string' ? input.purpose.key_id : null);

/** When the current free-quota period (UTC) ends. */
function nextPeriod(period: 'day' | 'month'): number {
  const start = new Date(`${periodStart(period, new Date())}T00:00:00Z`);
  if (period === 'day') start.setUTCDate(start.getUTCDate() + 1);
  else start.setUTCMonth(start.getUTCMonth() + 1);
  return start.getTime();
}
