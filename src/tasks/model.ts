// A task's row and the life of every task, whatever its kind (kind.ts). Every change is an UPDATE
// guarded by the status it leaves, written by src/tasks only.

/** The life of a task. Every change is an UPDATE guarded by the status it leaves. */
export enum TaskStatus {
  /**
   * The gateway's queue: nothing sent upstream, no upstream id. Entered on acceptance when the
   * provider's max_concurrent_tasks is reached, the provider or this customer is paused after a
   * refusal, or others wait before it, or when the provider refuses a submission for its account's
   * concurrency (queue.ts); left for submitting when dispatched (dispatch.ts), cancelled by the
   * customer, or failed once it waited too long. Only kinds that can send a task from its row wait.
   */
  Waiting = 'waiting',
  /** Entered on acceptance (or dispatch from waiting), in the transaction that reserves; left once the upstream id is stored (queued), on a concurrency refusal (waiting), another refusal (failed), an unconfirmed submission (review), or by recovery (review). */
  Submitting = 'submitting',
  /** Entered when the upstream accepted the task or reports it waiting; left for in_progress, completed, failed, cancelled or review. */
  Queued = 'queued',
  /** Entered when the upstream reports work under way; left for completed, failed, cancelled or review. */
  InProgress = 'in_progress',
  /** Terminal. Entered when the kind confirms what was delivered and the task is settled by it (a background response: by its usage, whatever its own final status), or an operator settles it from review. */
  Completed = 'completed',
  /** Terminal. Entered when the upstream refuses, fails or expires the task, it waited in the gateway's queue too long, or an operator releases it from review; the reservation is released. */
  Failed = 'failed',
  /** Terminal. Entered once the upstream confirms a cancel, or at once for a waiting task; the reservation is released. */
  Cancelled = 'cancelled',
  /** Entered when usage or cost cannot be confirmed, the status is unknown, a submission is unconfirmed or the deadline passed; left only by an operator (settle or release, review.ts). */
  Review = 'review',
}

/** Statuses the poller owns: sent (or being sent) upstream and not decided. */
export const LIVE_STATUSES: readonly TaskStatus[] = [TaskStatus.Submitting, TaskStatus.Queued, TaskStatus.InProgress];

/** A row of the task table (`video_tasks`, named for its first kind). `Request` and `Price` are the kind's own snapshots. */
export interface TaskRow<Request = unknown, Price = unknown> {
  id: string;
  /** The kind that accepted it and reads its upstream (kind.ts): `video`, `response`, ... */
  kind: string;
  customer_id: string;
  key_id: string;
  model_id: string;
  provider_id: string;
  upstream_model: string;
  upstream_task_id: string | null;
  status: TaskStatus;
  upstream_status: string | null;
  progress: number | null;
  /** What the kind needs to send and bill the task (a video: the normalised request; a background response: numbers only). */
  request: Request;
  /** The price snapshot at acceptance (with its `version` and `currency`). */
  price: Price;
  price_version_id: bigint;
  reserved: bigint;
  idempotency_key: string | null;
  request_hash: string;
  error: { code: string; message: string } | null;
  result: Record<string, unknown> | null;
  billed_seconds: number | null;
  billed_tier: string | null;
  billed_amount: bigint | null;
  attempts: number;
  next_poll_at: Date | null;
  lease_until: Date | null;
  deadline_at: Date;
  /** The plan's cancel capability at acceptance; null on tasks older than the column. */
  cancellable: boolean | null;
  expires_at: Date | null;
  /** When the task first entered the gateway's queue; null if it never waited there. */
  queued_at?: Date | null;
  /** Not a column: the place in its provider's queue (1: next), filled in while waiting (turns.ts). */
  queue_position?: number | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}
