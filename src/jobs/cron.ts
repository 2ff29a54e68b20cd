// The poller's clock: a node-cron tick that drains due video tasks. No logic here; correctness
// comes from the database leases (any number of processes may tick at once).
import cron from 'node-cron';
import type { Logger } from '../logger.ts';
import type { VideoWorker } from '../domain/videos/worker.ts';

export function scheduleVideoPoller(worker: VideoWorker, logger: Logger, batchSize: number): { stop(): void } {
  const task = cron.schedule(
    '* * * * * *', // every second; an idle tick is one indexed query
    async () => {
      try {
        // Keep claiming while batches come back full.
        while ((await worker.processBatch()) >= batchSize) {
          /* next batch */
        }
      } catch (error) {
        logger.error({ err: error }, 'video poller tick failed');
      }
    },
    { noOverlap: true, name: 'video-poller' },
  );
  return { stop: () => void task.stop() };
}
