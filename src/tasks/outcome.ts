// Applies what a kind read from its upstream (TaskOutcome): progress, settlement, release, review,
// or another poll later. Ledger operations take effect once per task id and the status change is
// guarded by the live statuses, so an outcome applied twice (two pollers, a cancel racing a poll)
// takes effect once; the money moves before the status, so a crash between them is repaired by the
// next poll (the ledger replays the settle or release, and the status follows).
import { isLedgerError, LedgerError } from '../ledger/errors.ts';
import type { TaskContext } from './context.ts';
import type { TaskOutcome } from './kind.ts';
import { LIVE_STATUSES, TaskStatus, type TaskRow } from './model.ts';
import { changeTask, NOW } from './repo.ts';

type OutcomeContext = Pick<TaskContext, 'db' | 'ledger' | 'logger' | 'pollMs'>;

/** Most the backoff of a task's polls grows to (its provider answering errors or 429s). */
export const MAX_POLL_BACKOFF_MS = 300_000;

export async function applyOutcome(ctx: OutcomeContext, task: TaskRow, outcome: TaskOutcome): Promise<void> {
  const { db, ledger } = ctx;
  switch (outcome.outcome) {
    case 'retry':
      return backoff(ctx, task);
    case 'running':
      await changeTask(db, task.id, LIVE_STATUSES, {
        ...outcome.seen,
        status: outcome.status,
        ...(outcome.progress === undefined ? {} : { progress: outcome.progress }),
        next_poll_at: new Date(Date.now() + ctx.pollMs),
        lease_until: null,
      });
      return;
    case 'release': {
      // Already settled means another path confirmed delivery first; that one owns the status.
      if ((await ledger.release({ ref: task.id, purpose: { reason: outcome.reason } })) === LedgerError.AlreadySettled) return;
      await changeTask(db, task.id, LIVE_STATUSES, {
        ...outcome.seen,
        status: outcome.status,
        ...(outcome.error ? { error: JSON.stringify(outcome.error) } : {}),
        next_poll_at: null,
        lease_until: null,
        completed_at: NOW,
      });
      return;
    }
    case 'review':
      return toReview(ctx, task, outcome.code, outcome.message, outcome.seen);
    case 'settle': {
      // With the customer named, settles of one wallet share a statement and a commit: the poller
      // settles many tasks of one customer at once, and alone each would wait on the wallet row.
      const settled = await ledger.settle({ ref: task.id, customerId: task.customer_id, charge: outcome.charge, purpose: outcome.purpose });
      if (settled === LedgerError.AlreadyReleased) return; // a cancel ended it first and owns the status
      if (isLedgerError(settled)) {
        ctx.logger.error({ video_task_id: task.id, kind: task.kind, error: settled }, 'task settle refused');
        return toReview(ctx, task, 'settle_refused', `The charge could not be posted (${settled}).`, outcome.seen);
      }
      await changeTask(db, task.id, LIVE_STATUSES, {
        ...outcome.seen,
        status: TaskStatus.Completed,
        progress: 100,
        ...(outcome.billed ? { billed_seconds: outcome.billed.seconds, billed_tier: outcome.billed.tier } : {}),
        billed_amount: (settled.charged + settled.debt).toString(), // what the output cost: posted, and any debt
        ...(outcome.expiresAt === undefined ? {} : { expires_at: outcome.expiresAt }),
        next_poll_at: null,
        lease_until: null,
        completed_at: NOW,
      });
      return;
    }
  }
}

/** Undecidable: an operator settles or releases it (review.ts); the hold stays until then. */
export async function toReview(ctx: Pick<TaskContext, 'db' | 'logger'>, task: TaskRow, code: string, message: string, seen: object = {}): Promise<void> {
  ctx.logger.warn({ video_task_id: task.id, kind: task.kind, code }, 'task needs review');
  await changeTask(ctx.db, task.id, LIVE_STATUSES, {
    ...seen,
    status: TaskStatus.Review,
    error: JSON.stringify({ code, message }),
    next_poll_at: null,
    lease_until: null,
  });
}

/** Poll errors and upstream 429/5xx never end a task: it is polled again later, each time later. */
export async function backoff(ctx: Pick<TaskContext, 'db' | 'pollMs'>, task: TaskRow, maxMs = MAX_POLL_BACKOFF_MS): Promise<void> {
  const delay = Math.min(ctx.pollMs * 2 ** Math.min(task.attempts, 16), maxMs);
  await changeTask(ctx.db, task.id, [TaskStatus.Queued, TaskStatus.InProgress], { next_poll_at: new Date(Date.now() + delay), lease_until: null });
}
