// What /metrics shows of the tasks, read when Prometheus scrapes (every replica reports the same
// shared truth): tasks by status, the poller's lag, and each provider's queue. Given to the metrics
// registry by src/gateway.ts, so metrics never reaches into the products or the engine.
import type { Knex } from 'knex';
import { waitingByProvider } from './queue.ts';

export interface TaskGauges {
  byStatus: Array<{ status: string; tasks: number }>;
  /** How overdue the most overdue unleased live task is, in seconds (0: none due). */
  lagSeconds: number;
  queues: Array<{ provider_id: string; depth: number; oldest_wait_s: number }>;
}

export async function readTaskGauges(db: Knex): Promise<TaskGauges> {
  // Sequential: the embedded database has a single connection anyway.
  const tasks = await db.raw<{ rows: Array<{ status: string; tasks: string | number | bigint }> }>(
    'select status, count(*) as tasks from video_tasks group by status',
  );
  // The same predicate as the poller's claim (repo.ts), on its partial index.
  const lag = await db.raw<{ rows: Array<{ lag: string | number | null }> }>(
    `select extract(epoch from now() - min(next_poll_at)) as lag from video_tasks
      where status in ('submitting', 'queued', 'in_progress') and next_poll_at <= now() and (lease_until is null or lease_until < now())`,
  );
  return {
    byStatus: tasks.rows.map((r) => ({ status: r.status, tasks: Number(r.tasks) })),
    lagSeconds: Math.max(0, Number(lag.rows[0]?.lag ?? 0)),
    queues: await waitingByProvider(db),
  };
}
