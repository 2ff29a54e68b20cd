// The poller: dispatches waiting tasks (dispatch.ts), claims due tasks (SKIP LOCKED + lease),
// polls them through their kinds with bounded concurrency and per-task backoff, and applies each
// outcome (outcome.ts). Tasks past their deadline, or whose submission was never confirmed, go to
// review. No transaction is held across an upstream call.
import type { TaskContext } from './context.ts';
import { createDispatcher } from './dispatch.ts';
import { TaskStatus, type TaskRow } from './model.ts';
import { applyOutcome, backoff, MAX_POLL_BACKOFF_MS, toReview } from './outcome.ts';
import { claimDue, claimDueNotingWaiting, giveBack } from './repo.ts';

/**
 * Tasks claimed per batch, and polled at once within one. Measured on the bench (10,000 tasks due
 * at once, one customer, PostgreSQL, before settles and status changes were batched): 100 and 16
 * settled 893/s, 100 and 48 995/s, 250 and 64 1,098/s; more lanes also mean larger batches.
 */
export const TASK_POLL_BATCH = 250;
export const TASK_POLL_CONCURRENCY = 64;

export interface TaskWorkerOptions extends Omit<TaskContext, 'pollMs'> {
  /** How soon a live task is polled again (default 5 s). */
  pollIntervalMs?: number;
  leaseMs?: number;
  batchSize?: number;
  concurrency?: number;
  maxBackoffMs?: number;
}

export interface TaskWorker {
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

export function createTaskWorker(options: TaskWorkerOptions): TaskWorker {
  const ctx: TaskContext = { ...options, pollMs: options.pollIntervalMs ?? 5_000 };
  const leaseMs = options.leaseMs ?? 60_000;
  const maxBackoff = options.maxBackoffMs ?? MAX_POLL_BACKOFF_MS;
  const dispatcher = createDispatcher(ctx);

  async function handle(task: TaskRow): Promise<void> {
    if (task.status === TaskStatus.Submitting) {
      // Its process died between reserving and storing the upstream id: the provider may or may
      // not have the task, and a resubmission could be charged twice upstream.
      return toReview(ctx, task, 'submission_unconfirmed', 'The gateway stopped before the provider confirmed the submission.');
    }
    if (new Date(task.deadline_at).getTime() < Date.now())
      return toReview(ctx, task, 'deadline_passed', 'The task passed its deadline without a confirmed result.');
    const kind = ctx.kinds.get(task.kind);
    const provider = ctx.catalogue.current().providers.get(task.provider_id);
    // A kind not registered here, a provider disabled or gone: polled again later, never ended for it.
    if (!kind || !provider?.baseUrl || !task.upstream_task_id) return backoff(ctx, task, maxBackoff);
    const outcome = await kind.poll(task, provider);
    await (outcome.outcome === 'retry' ? backoff(ctx, task, maxBackoff) : applyOutcome(ctx, task, outcome));
  }

  const batchSize = options.batchSize ?? TASK_POLL_BATCH;

  /**
   * Runs the lanes over claimed tasks: one claim only, or claims ahead of the lanes until one is
   * short. `first` is a batch already claimed (the tick's first claim).
   */
  async function work(oneBatch: boolean, stop?: AbortSignal, first?: TaskRow[]): Promise<number> {
    const lanes = options.concurrency ?? TASK_POLL_CONCURRENCY;
    const queue: TaskRow[] = first ? [...first] : [];
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
        await handle(task).catch((error: unknown) => options.logger.error({ err: error, video_task_id: task.id, kind: task.kind }, 'task poll failed'));
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
