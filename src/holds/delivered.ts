// What a hold's owner last said was delivered: the one reader of the checkpoints that holds.ts and
// grants.ts write on every heartbeat. The sweeper charges it when the owner is gone (a floor: the
// owner's own report, if it comes, posts the difference, src/ledger/owed.ts), and the operators'
// reservation list shows it.
import type { ReservationRow } from '../ledger/index.ts';

/** One open request of a grant as its owner last checkpointed it (what `Grants.checkpoints()` writes). */
export interface CheckpointedDraw {
  ref: string;
  charge: string;
  /** The upstream cost at the checkpoint (src/pricing/upstream-cost.ts) rides beside the counts. */
  usage?: { input_tokens?: number; output_tokens?: number; upstream_cost?: unknown } | null;
  request_id?: string;
  model?: string;
  key_id?: string;
  endpoint?: string;
}

/** The requests a grant's checkpoint holds open with something delivered: what the sweeper charges. */
export function checkpointedDraws(progress: unknown): CheckpointedDraw[] {
  return ((progress as { inflight?: CheckpointedDraw[] } | null)?.inflight ?? []).filter((d) => d.ref && d.charge);
}

/** A request reservation's checkpoint: what was delivered, priced (0 when nothing was). */
export const checkpointedCharge = (hold: Pick<ReservationRow, 'progress'>): bigint => (hold.progress?.charge ? BigInt(hold.progress.charge) : 0n);

/**
 * What the sweeper would charge for a hold now: a request reservation's checkpoint, or for a grant
 * the sum of the open requests it checkpointed. Undefined when nothing was delivered.
 */
export function deliveredSoFar(hold: Pick<ReservationRow, 'progress'>): bigint | undefined {
  if (hold.progress?.charge) return checkpointedCharge(hold);
  const open = checkpointedDraws(hold.progress);
  return open.length > 0 ? open.reduce((sum, d) => sum + BigInt(d.charge), 0n) : undefined;
}
