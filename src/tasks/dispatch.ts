// The dispatcher: on each poller tick, sends waiting tasks to their providers as far as each
// provider's max_concurrent_tasks allows (fair order, paused customers skipped, one replica per
// provider at a time: see queue.ts and turns.ts), and ends the waits that went on too long (failed,
// hold released, nothing sent). Each task goes out through its kind (submit.ts).
import { DEFAULT_MAX_QUEUE_WAIT_SECONDS, type ResolvedProvider } from '../catalogue/types.ts';
import { LedgerAbort } from '../ledger/service.ts';
import { DEFAULT_DEADLINE_MS, SUBMIT_LEASE_MS, type TaskContext } from './context.ts';
import type { TaskRow } from './model.ts';
import { expireWaiting, inFlight, isPaused, lockProvider, overdueWaiting, waitingByProvider } from './queue.ts';
import { submitTask } from './submit.ts';
import { takeWaiting } from './turns.ts';

/** Most tasks one provider's dispatch takes at once (a provider without a limit of ours), and submits in parallel. */
const DISPATCH_BATCH = 50;
const SUBMIT_LANES = 8;

export interface Dispatcher {
  /** Ends overdue waits and dispatches what each provider has room for; returns how many tasks were sent. */
  dispatch(stop?: AbortSignal): Promise<number>;
}

export function createDispatcher(ctx: TaskContext): Dispatcher {
  const { db, logger } = ctx;
  const deadlineMs = ctx.deadlineMs ?? DEFAULT_DEADLINE_MS;

  /** Fails a waiting task past its provider's bound and releases its hold, in one transaction (or neither). */
  async function expire(taskId: string, maxWaitMs: number): Promise<void> {
    await expireWaiting(db, ctx.ledger, taskId, maxWaitMs).catch((error: unknown) => {
      if (!(error instanceof LedgerAbort)) throw error;
      logger.error({ video_task_id: taskId, error: error.code }, 'queue timeout: the hold could not be released');
    });
  }

  /** Tasks of one provider moved to submitting under its row lock; [] when another replica holds it. */
  async function take(provider: ResolvedProvider): Promise<TaskRow[]> {
    return db.transaction(async (trx) => {
      const row = await lockProvider(trx, provider.id, 'skip');
      if (!row || isPaused(row)) return [];
      const limit = provider.queue?.maxConcurrent;
      let room = limit === undefined ? DISPATCH_BATCH : Math.min(DISPATCH_BATCH, limit - (await inFlight(trx, provider.id)));
      // Just out of the account's pause: one task first, the rest once the provider has taken it (no burst of refusals).
      if (row.refusals > 0) room = Math.min(room, 1);
      if (room <= 0) return [];
      return takeWaiting(trx, provider.id, room, { leaseMs: SUBMIT_LEASE_MS, deadlineMs });
    });
  }

  async function dispatchProvider(provider: ResolvedProvider): Promise<number> {
    const tasks = await take(provider);
    let sent = 0;
    let next = 0;
    // Once taken, every task is submitted (a stop does not leave them in submitting).
    const lane = async (): Promise<void> => {
      while (next < tasks.length) {
        const task = tasks[next++]!;
        const waitedMs = Date.now() - new Date(task.queued_at ?? task.created_at).getTime();
        const outcome = await submitTask(ctx, task, provider).catch((error: unknown) => {
          logger.error({ err: error, video_task_id: task.id }, 'task dispatch failed');
          return undefined;
        });
        if (outcome?.outcome === 'accepted') {
          sent++;
          ctx.metrics?.videoDispatched(provider.id, waitedMs / 1000);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUBMIT_LANES, tasks.length) }, lane));
    return sent;
  }

  return {
    async dispatch(stop) {
      const waiting = await waitingByProvider(db);
      const providers = ctx.catalogue.current().providers;
      let sent = 0;
      for (const { provider_id: id } of waiting) {
        if (stop?.aborted) break;
        const provider = providers.get(id);
        const maxWaitMs = provider?.queue?.maxWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_SECONDS * 1000;
        for (const taskId of await overdueWaiting(db, id, maxWaitMs)) await expire(taskId, maxWaitMs);
        // A provider disabled or gone since: its tasks wait (for it to return, or for their bound).
        if (!provider?.baseUrl) continue;
        sent += await dispatchProvider(provider);
      }
      return sent;
    },
  };
}
