// What a product registers to run its asynchronous tasks on the engine: a name, how to send a task
// from its row, and how to read what the upstream says about it. A kind never writes the task
// table, the ledger or another kind's rows: it answers with values (Submission, TaskOutcome) and
// the engine records them (submit.ts, outcome.ts), so every kind gets the same claim, lease,
// backoff, queue, deadline, review and exactly-once settlement. Kinds are registered by name in
// src/gateway.ts; a kind never imports another.
import type { ResolvedProvider } from '../catalogue/types.ts';
import type { Charge } from '../ledger/service.ts';
import type { UpstreamError } from '../providers/types.ts';
import type { TaskRow, TaskStatus } from './model.ts';

/** What a submission came to, as the kind reads its upstream's answer. */
export type Submission<Reply = unknown> =
  /** The upstream has the task under `upstreamId`; `reply` is what the creator relays (a background response's queued answer). */
  | { outcome: 'accepted'; upstreamId: string; upstreamStatus?: string | null; reply?: Reply }
  /** The provider's account is full (429 provider_concurrency): the task waits in the gateway's queue and is sent again from its row. */
  | { outcome: 'busy'; cause: UpstreamError }
  /** The upstream may or may not have it (a timeout, an answer without an id): review, never resubmitted. */
  | { outcome: 'unconfirmed'; message: string }
  /** Refused for good: the hold is released and the task fails with `error` (the creator maps `cause` for its client). */
  | { outcome: 'refused'; error: { code: string; message: string }; cause: UpstreamError };

/** What the upstream's answer seen by a poll leaves on the row for operators. */
export interface Seen {
  upstream_status?: string;
  /** The upstream's object as received (JSON text). */
  result?: string;
}

/** What a poll (or a cancel's look) means for a task, as its kind reads it; the engine applies it once (outcome.ts). */
export type TaskOutcome =
  /** The upstream could not be asked or answered nothing usable: poll again later, with backoff. */
  | { outcome: 'retry' }
  | { outcome: 'running'; status: TaskStatus.Queued | TaskStatus.InProgress; progress?: number | null; seen: Seen }
  /** Delivered: charge `charge` (the hold first) and complete the task. */
  | {
      outcome: 'settle';
      charge: Charge;
      /** Recorded with the journal entry (the receipt reads it). */
      purpose: Record<string, unknown>;
      billed?: { seconds: number; tier: string };
      expiresAt?: Date | null;
      seen: Seen;
    }
  /** Nothing delivered (failed, expired, cancelled): release the hold. */
  | { outcome: 'release'; status: TaskStatus.Failed | TaskStatus.Cancelled; reason: string; error?: { code: string; message: string }; seen: Seen }
  /** Undecidable (no usage, unknown status, contradictions): an operator decides; the hold stays. */
  | { outcome: 'review'; code: string; message: string; seen?: Seen };

export interface TaskKind<Request = unknown, Price = unknown> {
  /** The `kind` column of its rows. */
  readonly name: string;
  /**
   * Sends a task from its row. The create path and the dispatcher (a task that waited in the
   * gateway's queue) call it. A kind without it sends at create from what the row does not keep
   * (a background response's content) and records that with recordSubmission; its tasks never wait.
   */
  submit?(task: TaskRow<Request, Price>, provider: ResolvedProvider): Promise<Submission>;
  /** Asks the upstream about a live task (provider enabled, upstream id known) and reads the answer. */
  poll(task: TaskRow<Request, Price>, provider: ResolvedProvider): Promise<TaskOutcome>;
}

/** The registered kinds by name. */
export type TaskKinds = ReadonlyMap<string, TaskKind>;

/**
 * Registers kinds by name. A row is written by its kind's own create path with that kind's
 * Request and Price, so the engine hands each kind only rows of its own shape.
 */
export function taskKinds(...kinds: Array<TaskKind<never, never>>): TaskKinds {
  const byName = new Map<string, TaskKind>();
  for (const kind of kinds) {
    if (!/^[a-z][a-z0-9_]{0,31}$/.test(kind.name)) throw new Error(`task kind name ${JSON.stringify(kind.name)}: lower case, digits and _`);
    if (byName.has(kind.name)) throw new Error(`task kind ${kind.name} registered twice`);
    byName.set(kind.name, kind as TaskKind);
  }
  return byName;
}
