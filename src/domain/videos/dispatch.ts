// The dispatcher: on each poller tick, sends waiting tasks to their providers as far as each
// provider's max_concurrent_tasks allows (fair order, one replica per provider at a time: see
// queue.ts), and ends the waits that went on too long (failed, hold released, nothing sent).
import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';
import { DEFAULT_MAX_QUEUE_WAIT_SECONDS, type ResolvedProvider } from '../../catalogue/types.ts';
import { LedgerAbort, type Ledger } from '../../ledger/service.ts';
import type { Logger } from '../../logger.ts';
import type { VideoQueueMetrics } from '../../metrics/hooks.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { inFlight, isPaused, lockProvider, overdueWaiting, takeWaiting, waitingByProvider } from './queue.ts';
import { SUBMIT_LEASE_MS, submitTask, type SubmitDeps } from './submit.ts';

/** Most tasks one provider's dispatch takes at once (a provider without a limit of ours), and submits in parallel. */
const DISPATCH_BATCH = 50;
const SUBMIT_LANES = 8;

export interface DispatcherDeps {
  db: Knex;
  ledger: Ledger;
  logger: Logger;
  catalogue: CatalogueStore;
  pollIntervalMs?: number;
  /** How long a dispatched task may take upstream before it goes to review (default 48 h). */
  deadlineMs?: number;
  metrics?: VideoQueueMetrics;
}

export interface Dispatcher {
  /** Ends overdue waits and dispatches what each provider has room for; returns how many tasks were sent. */
  dispatch(stop?: AbortSignal): Promise<number>;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { db, logger } = deps;
  const submitDeps: SubmitDeps = {
    db,
    ledger: deps.ledger,
    logger,
    pollMs: deps.pollIntervalMs ?? 5_000,
    onRequeue: (provider) => deps.metrics?.videoRequeued(provider),
  };
  const deadlineMs = deps.deadlineMs ?? 48 * 3_600_000;

  /** Fails a waiting task past its provider's bound and releases its hold, in one transaction (or neither). */
  async function expire(taskId: string, maxWaitMs: number): Promise<void> {
    const bound = maxWaitMs < 120_000 ? `${Math.round(maxWaitMs / 1000)} seconds` : `${Math.round(maxWaitMs / 60_000)} minutes`;
    await db
      .transaction(async (trx) => {
        const updated = await trx('video_tasks')
          .where({ id: taskId, status: VideoStatus.Waiting })
          .update({
            status: VideoStatus.Failed,
            error: JSON.stringify({
              code: 'queue_timeout',
              message: `The provider had no room for the task within ${bound}; it was never started and nothing was charged.`,
            }),
            completed_at: trx.fn.now(),
            updated_at: trx.fn.now(),
          });
        if (updated === 1) await deps.ledger.releaseWithin(trx, { ref: taskId, purpose: { reason: 'waited too long in the gateway queue' } });
      })
      .catch((error: unknown) => {
        if (!(error instanceof LedgerAbort)) throw error;
        logger.error({ video_task_id: taskId, error: error.code }, 'queue timeout: the hold could not be released');
      });
  }

  /** Tasks of one provider moved to submitting under its row lock; [] when another replica holds it. */
  async function take(provider: ResolvedProvider): Promise<VideoTaskRow[]> {
    return db.transaction(async (trx) => {
      const row = await lockProvider(trx, provider.id, 'skip');
      if (!row || isPaused(row)) return [];
      const limit = provider.queue?.maxConcurrent;
      let room = limit === undefined ? DISPATCH_BATCH : Math.min(DISPATCH_BATCH, limit - (await inFlight(trx, provider.id)));
      // Just out of a pause: one task first, the rest once the provider has taken it (no burst of refusals).
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
        const outcome = await submitTask(submitDeps, task, provider).catch((error: unknown) => {
          logger.error({ err: error, video_task_id: task.id }, 'video dispatch failed');
          return undefined;
        });
        if (outcome?.kind === 'submitted') {
          sent++;
          deps.metrics?.videoDispatched(provider.id, waitedMs / 1000);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUBMIT_LANES, tasks.length) }, lane));
    return sent;
  }

  return {
    async dispatch(stop) {
      const waiting = await waitingByProvider(db);
      const providers = deps.catalogue.current().providers;
      let sent = 0;
      for (const { provider_id: id } of waiting) {
        if (stop?.aborted) break;
        const provider = providers.get(id);
        const maxWaitMs = provider?.queue?.maxWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_SECONDS * 1000;
        for (const taskId of await overdueWaiting(db, id, maxWaitMs)) await expire(taskId, maxWaitMs);
        // A provider disabled or gone since: its tasks wait (for it to return, or for their bound).
        if (!provider?.baseUrl || !videoAdapters[provider.protocol]) continue;
        sent += await dispatchProvider(provider);
      }
      return sent;
    },
  };
}
