// The poller: dispatches waiting tasks (dispatch.ts), claims due tasks (SKIP LOCKED + lease),
// polls them with bounded concurrency and per-task backoff, applies each outcome. No transaction
// is held across an upstream call.
import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';
import type { VideoQueueMetrics } from '../../metrics/hooks.ts';
import { UpstreamError } from '../../providers/types.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import { createDispatcher } from './dispatch.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { settleFromPoll, toReview, type OutcomeDeps } from './outcome.ts';
import { batchedTransitions, claimDue, claimDueNotingWaiting, giveBack } from './repo.ts';

/**
 * Tasks claimed per batch, and polled at once within one. Measured on the bench (10,000 tasks due
 * at once, one customer, PostgreSQL, before settles and status changes were batched): 100 and 16
 * settled 893/s, 100 and 48 995/s, 250 and 64 1,098/s; more lanes also mean larger batches.
 */
export const VIDEO_POLL_BATCH = 250;
export const VIDEO_POLL_CONCURRENCY = 64;

/** Polls the tasks of another kind that share the table (background responses), with the worker's tools. */
export interface TaskKindPoller {
  poll(task: VideoTaskRow, tools: { outcome: OutcomeDeps; backoff(): Promise<void>; pollMs: number }): Promise<void>;
}

export interface VideoWorkerOptions extends Omit<OutcomeDeps, 'transition'> {
  db: Knex;
  /** Background responses (kind `response`); without it they are only backed off. */
  responses?: TaskKindPoller;
  catalogue: CatalogueStore;
  pollIntervalMs?: number;
  leaseMs?: number;
  batchSize?: number;
  concurrency?: number;
  maxBackoffMs?: number;
  /** How long a dispatched task may take upstream before it goes to review (default 48 h). */
  deadlineMs?: number;
  metrics?: VideoQueueMetrics;
}

export interface VideoWorker {
  /** Dispatches waiting tasks the providers have room for, then claims and processes one batch; returns how many tasks it handled (0: nothing due). */
  processBatch(): Promise<number>;
  /**
   * Processes due tasks until a claim comes back short (the poller's tick). The next batch is
   * claimed while the lanes still work on the last one, so they never wait for a claim as long as
   * work is due; returns how many tasks it handled. Once `stop` aborts (shutdown), no task is
   * claimed or started: the lanes finish the polls under way, and the tasks claimed but not
   * started are given back at once rather than when their lease runs out. Waiting tasks are
   * dispatched first, and again once polls have ended tasks (their slots are free).
   */
  drain(stop?: AbortSignal): Promise<number>;
}

export function createVideoWorker(options: VideoWorkerOptions): VideoWorker {
  const pollMs = options.pollIntervalMs ?? 5_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const maxBackoff = options.maxBackoffMs ?? 300_000;
  const outcome: OutcomeDeps = { ledger: options.ledger, logger: options.logger, transition: batchedTransitions(options.db) };
  const dispatcher = createDispatcher(options);

  async function handle(task: VideoTaskRow): Promise<void> {
    if (task.status === VideoStatus.Submitting) {
      // Its process died between reserving and storing the upstream id: the provider may or may
      // not have the task, and a resubmission could be charged twice upstream.
      return toReview(outcome, task, 'submission_unconfirmed', 'The gateway stopped before the provider confirmed the submission.');
    }
    if (new Date(task.deadline_at).getTime() < Date.now())
      return toReview(outcome, task, 'deadline_passed', 'The task passed its deadline without a confirmed result.');
    if (task.kind === 'response') return options.responses ? options.responses.poll(task, { outcome, backoff: () => backoff(task), pollMs }) : backoff(task);
    const provider = options.catalogue.current().providers.get(task.provider_id);
    const adapter = provider ? videoAdapters[provider.protocol] : undefined;
    if (!provider || !adapter || !task.upstream_task_id) return backoff(task);
    const poll = await adapter.poll(provider, task.upstream_task_id);
    if (poll instanceof UpstreamError) return backoff(task); // poll errors and 429/5xx never fail a task
    await settleFromPoll(outcome, task, poll, pollMs);
  }

  async function backoff(task: VideoTaskRow): Promise<void> {
    const delay = Math.min(pollMs * 2 ** Math.min(task.attempts, 16), maxBackoff);
    await outcome.transition(task.id, [VideoStatus.Queued, VideoStatus.InProgress], { next_poll_at: new Date(Date.now() + delay), lease_until: null });
  }

  const batchSize = options.batchSize ?? VIDEO_POLL_BATCH;

  /**
   * Runs the lanes over claimed tasks: one claim only, or claims ahead of the lanes until one is
   * short. `first` is a batch already claimed (the tick's first claim).
   */
  async function work(oneBatch: boolean, stop?: AbortSignal, first?: VideoTaskRow[]): Promise<number> {
    const lanes = options.concurrency ?? VIDEO_POLL_CONCURRENCY;
    const queue: VideoTaskRow[] = first ? [...first] : [];
    let more = first ? first.length >= batchSize : true;
    let failure: { error: unknown } | undefined;
    let claiming: Promise<void> | undefined;
    let handled = 0;
    // At most one claim in flight, started when fewer tasks wait than there are lanes.
    const refill = (): Promise<void> | undefined => {
      if (claiming || !more || stop?.aborted || queue.length >= lanes) return claiming;
      claiming = claimDue(options.db, batchSize, leaseMs)
        .then(
          (tasks) => {
            queue.push(...tasks);
            more = !oneBatch && tasks.length >= batchSize;
          },
          (error: unknown) => {
            more = false;
            failure = { error };
          },
        )
        .finally(() => (claiming = undefined));
      return claiming;
    };
    const lane = async (): Promise<void> => {
      while (!stop?.aborted) {
        void refill();
        let task = queue.shift();
        while (!task) {
          const claim = refill();
          if (!claim) return;
          await claim;
          if (stop?.aborted) return;
          task = queue.shift();
        }
        // Claimed ahead while the lanes were busy: if its lease ran out meanwhile (polls slower
        // than the lease allows for), another claim may hold it now; it is due again as it is.
        if (new Date(task.lease_until!).getTime() <= Date.now()) continue;
        await handle(task).catch((error: unknown) => options.logger.error({ err: error, video_task_id: task.id }, 'video poll failed'));
        handled++;
      }
    };
    await refill();
    if (queue.length > 0) await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane));
    await claiming; // a claim still in flight when the lanes stopped has its tasks given back too
    await giveBack(options.db, queue.splice(0));
    if (failure) throw failure.error;
    return handled;
  }

  return {
    async processBatch() {
      await dispatcher.dispatch();
      return work(true);
    },
    async drain(stop) {
      // One statement claims the first batch and says whether anything waits: an idle tick is that
      // statement alone. Waiting tasks are dispatched after the polls, which may have freed room.
      const first = await claimDueNotingWaiting(options.db, batchSize, leaseMs);
      const handled = await work(false, stop, first.tasks);
      if (first.waiting && !stop?.aborted) await dispatcher.dispatch(stop);
      return handled;
    },
  };
}
