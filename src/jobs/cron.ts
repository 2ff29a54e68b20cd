// The clocks of background work: node-cron ticks, no logic. Correctness comes from the database
// (leases, guarded updates, references that take effect once), so any number of processes may
// tick at once; `noOverlap` keeps one process from running a job twice at the same time.
import cron from 'node-cron';
import type { Logger } from '../logger.ts';

export interface Ticker {
  stop(): Promise<void>;
}

/** Runs `work` on the cron schedule; a failing run is logged and the next tick tries again. */
export function every(expression: string, name: string, logger: Logger, work: () => Promise<unknown>): Ticker {
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    expression,
    () => {
      running = work().catch((error: unknown) => logger.error({ err: error, job: name }, 'background job failed'));
      return running;
    },
    { noOverlap: true, name },
  );
  return {
    async stop() {
      await task.stop();
      await running;
    },
  };
}

/** Drains due video tasks, batch after batch while batches come back full. */
export function videoPollerJob(processBatch: () => Promise<number>, batchSize: number): () => Promise<void> {
  return async () => {
    while ((await processBatch()) >= batchSize) {
      /* next batch */
    }
  };
}
