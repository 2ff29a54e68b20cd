// Operators' view of holds on balances, and their way to end one the sweeper could not (or should
// not wait for). Video holds belong to their task and are resolved through the video review.
import { checkpointedCharge } from '../../holds/delivered.ts';
import { LedgerError } from '../../ledger/errors.ts';
import type { ReservationFilter } from '../../ledger/queries.ts';
import type { ReservationRow } from '../../ledger/repo.ts';
import type { Ledger } from '../../ledger/service.ts';
import { parseMicros } from '../../shared/money.ts';
import { Failure } from '../failure.ts';

export interface HoldView extends ReservationRow {
  ownerAlive: boolean;
}

export interface HoldResolution {
  action: 'settle' | 'release';
  amount?: string;
  actor: string;
  reason: string;
}

export interface HoldsReview {
  list(filter: Omit<ReservationFilter, 'staleSeconds'> & { stale?: boolean }): Promise<{ holds: HoldView[]; hasMore: boolean }>;
  resolve(ref: string, resolution: HoldResolution): Promise<HoldView | Failure>;
  /** Request holds whose process is gone, for the reconciliation report. */
  stale(): Promise<{ count: number; amount: bigint; refs: string[] }>;
}

export function createHoldsReview(deps: { ledger: Ledger; staleSeconds: number }): HoldsReview {
  const { ledger, staleSeconds } = deps;
  async function view(rows: ReservationRow[]): Promise<HoldView[]> {
    const alive = await ledger.liveOwners([...new Set(rows.map((r) => r.owner).filter((o): o is string => Boolean(o)))], staleSeconds);
    return rows.map((row) => ({ ...row, ownerAlive: row.owner !== null && alive.has(row.owner) }));
  }
  return {
    async list({ stale, ...filter }) {
      const { rows, hasMore } = await ledger.reservations({ ...filter, ...(stale ? { staleSeconds } : {}) });
      return { holds: await view(rows), hasMore };
    },
    async resolve(ref, { action, amount, actor, reason }) {
      const hold = await ledger.reservation(ref);
      if (!hold) return new Failure(LedgerError.ReservationNotFound, 'No reservation with this reference.', { param: 'ref' });
      if (hold.kind === 'video')
        return new Failure(
          LedgerError.AlreadySettled,
          `This hold belongs to video task ${hold.ref}: resolve it through /admin/v1/video-tasks/${hold.ref}/resolve.`,
        );
      // Requests of a running process draw from its grant in memory: ending it here would leave
      // them drawing on a hold that is gone. The process gives it back when idle or at shutdown,
      // and the sweeper ends it once the process is gone (with the charges its checkpoint names).
      if (hold.kind === 'grant')
        return new Failure(
          LedgerError.ReservationIsGrant,
          `This hold is a credit grant of gateway process ${hold.owner ?? 'unknown'}: the process gives it back when idle or at shutdown, and the sweeper ends it once the process is gone.`,
        );
      const purpose = { resolved_by: actor, reason };
      const delivered = checkpointedCharge(hold);
      const figure = amount === undefined ? delivered : parseMicros(amount);
      // Settling below what the owner checkpointed as delivered is a waiver, and says so: the
      // delivered amount stays the priced figure, the difference is recorded as waived.
      const waiver = figure < delivered ? { priced: { amount: delivered.toString() }, waived: (delivered - figure).toString() } : {};
      const result =
        action === 'settle'
          ? await ledger.settle({ ref, charge: { amount: figure }, purpose: { ...purpose, estimated: amount === undefined, ...waiver } })
          : await ledger.release({ ref, purpose });
      if (typeof result === 'string')
        return new Failure(result, `The reservation cannot be ${action === 'settle' ? 'settled' : 'released'}: it is ${hold.status}.`);
      const [after] = await view([(await ledger.reservation(ref))!]);
      return after!;
    },
    stale: () => ledger.staleHolds(staleSeconds),
  };
}
