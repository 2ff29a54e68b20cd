// Sends a task in `submitting` to its provider and records what came of it: the upstream id
// (queued), back to the gateway's queue on a concurrency refusal (waiting, the provider paused
// with backoff), review when the provider may or may not have it, or failed with the hold
// released on any other refusal. Used by create (a free slot) and by the dispatcher (queue).
import type { Knex } from 'knex';
import type { ResolvedProvider } from '../../catalogue/types.ts';
import { LedgerError } from '../../ledger/errors.ts';
import type { Ledger } from '../../ledger/service.ts';
import type { Logger } from '../../logger.ts';
import { isConcurrencyRefusal } from '../../providers/refusals.ts';
import { sanitizeForLog } from '../../providers/sanitize.ts';
import { UpstreamError } from '../../providers/types.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import type { Failure } from '../failure.ts';
import { videoFailures } from './errors.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { pauseProvider, resumeProvider } from './queue.ts';
import { NOW, transition } from './repo.ts';

/** A submission unconfirmed after this long is treated as orphaned by its process (see worker). */
export const SUBMIT_LEASE_MS = 60_000;

/** A provider that refuses for its concurrency is tried again after this, doubling up to the most below. */
export const QUEUE_BACKOFF_MAX_MS = 60_000;

export interface SubmitDeps {
  db: Knex;
  ledger: Ledger;
  logger: Logger;
  pollMs: number;
  /** Told when a refusal put a task back in the queue (metrics). */
  onRequeue?: (providerId: string) => void;
}

export type SubmitOutcome =
  | { kind: 'submitted' }
  /** Back in the gateway's queue: the provider's account was full. */
  | { kind: 'requeued' }
  /** The provider may have the task: it went to review, its hold kept. */
  | { kind: 'unconfirmed' }
  /** Refused for good: the task failed and its hold was released. */
  | { kind: 'refused'; failure: Failure };

const retryAfterMs = (error: UpstreamError): number => {
  const seconds = Number(error.headers['retry-after']);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, QUEUE_BACKOFF_MAX_MS) : 0;
};

/** What a submission needs of its task. */
export type SubmittedTask = Pick<VideoTaskRow, 'id' | 'model_id' | 'upstream_model' | 'request'>;

export async function submitTask(deps: SubmitDeps, task: SubmittedTask, provider: ResolvedProvider): Promise<SubmitOutcome> {
  const { db } = deps;
  const adapter = videoAdapters[provider.protocol];
  const submitted = adapter ? await adapter.submit(provider, task.upstream_model, task.request) : new UpstreamError('connect', true);
  if (!(submitted instanceof UpstreamError)) {
    await transition(db, task.id, VideoStatus.Submitting, {
      status: VideoStatus.Queued,
      upstream_task_id: submitted.upstreamId,
      next_poll_at: new Date(Date.now() + deps.pollMs),
    });
    await resumeProvider(db, provider.id);
    return { kind: 'submitted' };
  }
  if (isConcurrencyRefusal(submitted)) {
    deps.logger.info(
      { video_task_id: task.id, provider: provider.id, upstream_error: sanitizeForLog(submitted.body) },
      'provider account full: the task waits in the queue',
    );
    await pauseProvider(db, provider.id, { retryAfterMs: retryAfterMs(submitted), baseMs: deps.pollMs, maxMs: QUEUE_BACKOFF_MAX_MS });
    await transition(db, task.id, VideoStatus.Submitting, {
      status: VideoStatus.Waiting,
      queued_at: db.raw('coalesce(queued_at, now())'),
      next_poll_at: null,
      lease_until: null,
    });
    deps.onRequeue?.(provider.id);
    return { kind: 'requeued' };
  }
  if (submitted.kind === 'timeout' || submitted.kind === 'protocol') {
    // The provider may have accepted it: never resubmit, never release blindly.
    await transition(db, task.id, VideoStatus.Submitting, {
      status: VideoStatus.Review,
      error: JSON.stringify({ code: 'submission_unconfirmed', message: 'The provider did not confirm the submission.' }),
      next_poll_at: null,
    });
    return { kind: 'unconfirmed' };
  }
  const failure = videoFailures.upstreamRefused(submitted, [[task.upstream_model, task.model_id]]);
  deps.logger.warn(
    { video_task_id: task.id, provider: provider.id, status: submitted.status, upstream_error: sanitizeForLog(submitted.body) },
    'provider refused a video task',
  );
  const released = await deps.ledger.release({ ref: task.id, purpose: { reason: `upstream refused: ${submitted.status ?? submitted.kind}` } });
  if (released !== LedgerError.AlreadySettled)
    await transition(db, task.id, VideoStatus.Submitting, {
      status: VideoStatus.Failed,
      error: JSON.stringify({ code: failure.code, message: failure.message }),
      next_poll_at: null,
      completed_at: NOW,
    });
  return { kind: 'refused', failure };
}
