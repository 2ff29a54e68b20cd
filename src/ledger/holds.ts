// A request's hold on the balance, with one owner and one end. `scope` makes the end structural:
// whatever the work does (returns, throws, forgets), the hold is settled or released exactly once,
// through the settler (durable across database outages). While a hold is open its progress (what
// was delivered, priced) is checkpointed on every heartbeat tick, so if this process dies the
// sweeper charges what was delivered rather than nothing or everything.
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import type { Charge } from './context.ts';
import { LedgerError } from './errors.ts';
import type { Instance } from './instance.ts';
import type { ReserveInput } from './reserve.ts';
import type { Ledger } from './service.ts';
import type { SettlementResult, Settler } from './settler.ts';

export interface Hold {
  readonly ref: string;
  readonly customerId: string;
  /** What is held: the request's upper bound, after free units. */
  readonly amount: bigint;
  readonly ended: boolean;
  /** Records what was delivered so far, priced; the last checkpoint is charged if the owner dies. */
  checkpoint(charge: bigint, usage?: Record<string, unknown>): void;
  settle(charge: Charge, purpose?: Record<string, unknown>): Promise<SettlementResult>;
  release(reason: string): Promise<SettlementResult>;
}

export type HoldInput = Omit<ReserveInput, 'owner' | 'kind'>;

export interface Holds {
  open(input: HoldInput): Promise<Hold | LedgerError>;
  /** Opens a hold and runs `work` with it; a hold `work` left open is ended here (see above). */
  scope<T>(input: HoldInput, work: (hold: Hold) => Promise<T>): Promise<T | LedgerError>;
  /** Holds still open in this process. */
  live(): number;
  /** Writes changed checkpoints (the heartbeat tick calls it). */
  flushCheckpoints(): Promise<void>;
}

interface HoldState extends Hold {
  progress: { charge: bigint; usage?: Record<string, unknown> } | undefined;
  dirty: boolean;
}

export function createHolds(deps: { db: Knex; ledger: Ledger; settler: Settler; instance: Instance; logger: Logger }): Holds {
  const open = new Map<string, HoldState>();

  function makeHold(input: HoldInput, amount: bigint): HoldState {
    let ended = false;
    const end = (settlement: Parameters<Settler['submit']>[0]) => {
      if (ended) return Promise.resolve(LedgerError.AlreadySettled as SettlementResult);
      ended = true;
      open.delete(input.ref);
      return deps.settler.submit(settlement);
    };
    const hold: HoldState = {
      ref: input.ref,
      customerId: input.customerId,
      amount,
      progress: undefined,
      dirty: false,
      get ended() {
        return ended;
      },
      checkpoint(charge, usage) {
        if (ended) return;
        hold.progress = { charge: charge < amount ? charge : amount, ...(usage ? { usage } : {}) };
        hold.dirty = true;
      },
      settle: (charge, purpose) => end({ kind: 'settle', ref: input.ref, customerId: input.customerId, charge, ...(purpose ? { purpose } : {}) }),
      release: (reason) => end({ kind: 'release', ref: input.ref, purpose: { reason } }),
    };
    return hold;
  }

  return {
    async open(input) {
      const reserved = await deps.ledger.reserve({ ...input, kind: 'request', owner: deps.instance.id });
      if (typeof reserved === 'string') return reserved;
      const hold = makeHold(input, reserved.amount);
      open.set(input.ref, hold);
      return hold;
    },
    async scope(input, work) {
      const hold = await this.open(input);
      if (typeof hold === 'string') return hold;
      try {
        return await work(hold);
      } finally {
        if (!hold.ended) {
          const state = open.get(hold.ref);
          const delivered = state?.progress;
          deps.logger.warn({ ref: hold.ref, delivered: Boolean(delivered) }, 'hold left open by its request; ending it');
          void (delivered ? hold.settle({ amount: delivered.charge }, { ending: 'abandoned', estimated: true }) : hold.release('abandoned'));
        }
      }
    },
    live: () => open.size,
    async flushCheckpoints() {
      const dirty = [...open.values()].filter((hold) => hold.dirty && hold.progress);
      if (dirty.length === 0) return;
      for (const hold of dirty) hold.dirty = false;
      const rows = dirty.map((hold) => ({ ref: hold.ref, progress: { charge: hold.progress!.charge.toString(), usage: hold.progress!.usage ?? null, at: new Date().toISOString() } }));
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
