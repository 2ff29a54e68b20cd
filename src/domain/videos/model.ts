import type { RouteCost } from '../../pricing/upstream-cost.ts';
import type { NormalisedVideoRequest } from '../../providers/video.ts';

/** The life of a video task. Every change is an UPDATE guarded by the status it leaves. */
export enum VideoStatus {
  /**
   * The gateway's queue: nothing sent upstream, no upstream id. Entered on acceptance when the
   * provider's max_concurrent_tasks is reached, it is paused or others wait before it, or when the
   * provider refuses a submission for its account's concurrency; left for submitting when
   * dispatched (queue.ts), cancelled by the customer, or failed once it waited too long.
   */
  Waiting = 'waiting',
  /** Entered on acceptance (or dispatch from waiting), in the transaction that reserves; left once the upstream id is stored (queued), on a concurrency refusal (waiting), another refusal (failed), or by recovery. */
  Submitting = 'submitting',
  /** Entered when the upstream accepted the task or reports it waiting; left for in_progress, completed, failed, cancelled or review. */
  Queued = 'queued',
  /** Entered when the upstream reports work under way; left for completed, failed, cancelled or review. */
  InProgress = 'in_progress',
  /** Terminal. Entered when the delivered output is confirmed and the task is settled by it (a background response: settled by its usage, whatever its own final status). */
  Completed = 'completed',
  /** Terminal. Entered when the upstream refuses, fails or expires the task, or it waited in the gateway's queue too long; the reservation is released. */
  Failed = 'failed',
  /** Terminal. Entered once the upstream confirms a cancel, or at once for a waiting task; the reservation is released. */
  Cancelled = 'cancelled',
  /** Entered when usage or cost cannot be confirmed, the status is unknown or the deadline passed; left only by an operator (settle or release). */
  Review = 'review',
}

export const LIVE_STATUSES: readonly VideoStatus[] = [VideoStatus.Submitting, VideoStatus.Queued, VideoStatus.InProgress];

export interface VideoTaskRow {
  id: string;
  /** `response`: a background response (src/domain/responses/background.ts) polled by the same worker. */
  kind: 'video' | 'response';
  customer_id: string;
  key_id: string;
  model_id: string;
  provider_id: string;
  upstream_model: string;
  upstream_task_id: string | null;
  status: VideoStatus;
  upstream_status: string | null;
  progress: number | null;
  request: NormalisedVideoRequest;
  price: { per_second: Record<string, string>; currency: string };
  price_version_id: bigint;
  /** The serving route's cost at acceptance (operators only); null on tasks older than the column. */
  upstream_cost?: RouteCost | null;
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
  /** Not a column: the place in its provider's queue (1: next), filled in by the service while waiting. */
  queue_position?: number | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}
