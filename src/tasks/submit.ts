// Sends a task in `submitting` to its provider through its kind and records what came of it: the
// upstream id (queued), back to the gateway's queue when the provider's account is full (waiting,
// the customer or the provider paused with backoff: refusals.ts), review when the provider may or
// may not have it, or failed with the hold released on any other refusal. Used by a product's create
// (a free slot) and by the dispatcher (a task that waited).
import type { ResolvedProvider } from '../catalogue/types.ts';
import { LedgerError } from '../ledger/errors.ts';
import { sanitizeForLog } from '../providers/sanitize.ts';
import { UpstreamError } from '../providers/types.ts';
import type { TaskContext } from './context.ts';
import type { Submission } from './kind.ts';
import { TaskStatus, type TaskRow } from './model.ts';
import { recordAccepted, recordRefusal } from './refusals.ts';
import { changeTask, NOW } from './repo.ts';

/** A task that went back to the gateway's queue: whose refusal the provider's was (refusals.ts). */
export type Requeued = { outcome: 'requeued'; scope: 'customer' | 'account' };

/** What the kind's submission came to, once recorded; `requeued` instead of `busy`. */
export type Submitted<Reply = unknown> = Exclude<Submission<Reply>, { outcome: 'busy' }> | Requeued;

/** What a submission needs of its task. */
export type SubmittedTask = Pick<TaskRow, 'id' | 'kind' | 'customer_id' | 'model_id' | 'upstream_model' | 'request' | 'price'>;

/** Sends the task from its row through its kind's submit, and records the outcome. */
export async function submitTask(ctx: TaskContext, task: SubmittedTask, provider: ResolvedProvider): Promise<Submitted> {
  const kind = ctx.kinds.get(task.kind);
  const sent: Submission = kind?.submit
    ? await kind.submit(task as TaskRow, provider)
    : { outcome: 'refused', error: { code: 'unknown_kind', message: 'The gateway cannot send this task.' }, cause: new UpstreamError('connect', false) };
  return recordSubmission(ctx, task, provider, sent);
}

/**
 * Records a submission the product made itself (a kind without submit sends at create, with what
 * the row does not keep). The task leaves `submitting` once, by the guard.
 */
export async function recordSubmission<Reply>(
  ctx: TaskContext,
  task: SubmittedTask,
  provider: ResolvedProvider,
  sent: Submission<Reply>,
): Promise<Submitted<Reply>> {
  const { db } = ctx;
  switch (sent.outcome) {
    case 'accepted':
      await changeTask(db, task.id, TaskStatus.Submitting, {
        status: TaskStatus.Queued,
        upstream_task_id: sent.upstreamId,
        ...(sent.upstreamStatus === undefined ? {} : { upstream_status: sent.upstreamStatus }),
        next_poll_at: new Date(Date.now() + ctx.pollMs),
      });
      // Only kinds that wait in the gateway's queue take part in its pauses.
      if (ctx.kinds.get(task.kind)?.submit) await recordAccepted(db, provider.id, task.customer_id);
      return sent;
    case 'busy': {
      if (!ctx.kinds.get(task.kind)?.submit) break; // nothing could send it again from its row
      const scope = await recordRefusal(db, provider.id, task.customer_id, {
        retryAfterMs: retryAfterMs(sent.cause),
        baseMs: ctx.pollMs,
        maxMs: QUEUE_BACKOFF_MAX_MS,
      });
      ctx.logger.info(
        { video_task_id: task.id, provider: provider.id, scope, upstream_error: sanitizeForLog(sent.cause.body) },
        scope === 'account' ? 'provider account full: the task waits in the queue' : "provider refused this customer's task: its tasks wait",
      );
      await changeTask(db, task.id, TaskStatus.Submitting, {
        status: TaskStatus.Waiting,
        queued_at: db.raw('coalesce(queued_at, now())'),
        next_poll_at: null,
        lease_until: null,
      });
      ctx.metrics?.videoRequeued(provider.id);
      return { outcome: 'requeued', scope };
    }
    case 'unconfirmed':
      // The provider may have accepted it: never resubmit, never release blindly.
      await changeTask(db, task.id, TaskStatus.Submitting, {
        status: TaskStatus.Review,
        error: JSON.stringify({ code: 'submission_unconfirmed', message: sent.message }),
        next_poll_at: null,
      });
      return sent;
    case 'refused':
      break;
  }
  const refused: Extract<Submission, { outcome: 'refused' }> =
    sent.outcome === 'refused'
      ? sent
      : { outcome: 'refused', error: { code: 'upstream_rate_limited', message: 'The provider is rate limiting.' }, cause: sent.cause };
  ctx.logger.warn(
    { video_task_id: task.id, kind: task.kind, provider: provider.id, status: refused.cause.status, upstream_error: sanitizeForLog(refused.cause.body) },
    'provider refused a task',
  );
  const released = await ctx.ledger.release({ ref: task.id, purpose: { reason: `upstream refused: ${refused.cause.status ?? refused.cause.kind}` } });
  if (released !== LedgerError.AlreadySettled)
    await changeTask(db, task.id, TaskStatus.Submitting, {
      status: TaskStatus.Failed,
      error: JSON.stringify(refused.error),
      next_poll_at: null,
      completed_at: NOW,
    });
  return refused;
}

/** The most a provider (or one customer at it) is paused after refusals; the pause doubles up to it. */
export const QUEUE_BACKOFF_MAX_MS = 60_000;

const retryAfterMs = (error: UpstreamError): number => {
  const seconds = Number(error.headers['retry-after']);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, QUEUE_BACKOFF_MAX_MS) : 0;
};
