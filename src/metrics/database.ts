// Gauges read from the database when Prometheus scrapes, so the request path is not touched for
// them and every replica reports the same shared truth: pending holds, tasks by status, the
// poller's lag and the providers' queues (read by the task engine's own query, given here by
// src/gateway.ts). The connection pool's use is read from knex's pool (this process only).
import type { Knex } from 'knex';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger.ts';

const SCRAPE_QUERY_TIMEOUT_MS = 5000;

export interface DatabaseGauges {
  /** Runs the scrape-time queries and sets the gauges (cleared when the database fails). */
  refresh(): Promise<void>;
}

interface PoolLike {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

/** What the task engine reports of its tasks when scraped. */
export interface TaskGaugeReadings {
  byStatus: Array<{ status: string; tasks: number }>;
  lagSeconds: number;
  queues: Array<{ provider_id: string; depth: number; oldest_wait_s: number }>;
}

export interface DatabaseGaugeDeps {
  db: Knex;
  logger: Logger;
  currency: () => string;
  /** The tasks' readings (src/tasks/gauges.ts); without it the task gauges stay empty. */
  taskGauges?: () => Promise<TaskGaugeReadings>;
}

export function createDatabaseGauges(registry: Registry, deps: DatabaseGaugeDeps): DatabaseGauges {
  const registers = [registry];
  const pendingHolds = new Gauge({
    name: 'gateway_reservations_pending',
    help: 'Reservations (holds) not yet settled or released, by kind (request, video); all replicas.',
    labelNames: ['kind'],
    registers,
  });
  const pendingAmount = new Gauge({
    name: 'gateway_reservations_pending_amount',
    help: 'Amount held by pending reservations, in the catalogue currency, by kind; all replicas.',
    labelNames: ['kind', 'currency'],
    registers,
  });
  const videoTasks = new Gauge({ name: 'gateway_video_tasks', help: 'Video tasks by status; all replicas.', labelNames: ['status'], registers });
  const pollerLag = new Gauge({
    name: 'gateway_video_poller_lag_seconds',
    help: 'How overdue the most overdue unleased live video task is (0: none due); all replicas.',
    registers,
  });
  const queueDepth = new Gauge({
    name: 'gateway_video_queue_depth',
    help: "Video tasks waiting in the gateway's queue (nothing sent upstream yet), by provider; all replicas.",
    labelNames: ['provider'],
    registers,
  });
  const queueOldest = new Gauge({
    name: 'gateway_video_queue_oldest_wait_seconds',
    help: "How long the longest-waiting task of each provider's queue has waited so far; all replicas.",
    labelNames: ['provider'],
    registers,
  });
  const failures = new Counter({
    name: 'gateway_metrics_database_errors_total',
    help: 'Scrapes whose database gauges could not be read (they are left out of that scrape).',
    registers,
  });

  const pool = (deps.db.client as { pool?: PoolLike }).pool;
  new Gauge({
    name: 'gateway_db_pool_connections',
    help: "This process's database connections by state (used, free, pending_acquire, pending_create).",
    labelNames: ['state'],
    registers,
    collect() {
      const current = (deps.db.client as { pool?: PoolLike }).pool ?? pool;
      if (!current) return;
      this.set({ state: 'used' }, current.numUsed());
      this.set({ state: 'free' }, current.numFree());
      this.set({ state: 'pending_acquire' }, current.numPendingAcquires());
      this.set({ state: 'pending_create' }, current.numPendingCreates());
    },
  });
  new Gauge({
    name: 'gateway_db_pool_max',
    help: 'The most database connections this process opens.',
    registers,
    collect() {
      const current = (deps.db.client as { pool?: PoolLike }).pool ?? pool;
      if (current) this.set(current.max);
    },
  });

  async function read() {
    const { db } = deps;
    // Sequential: the embedded database has a single connection anyway.
    const holds = await db.raw<{ rows: Array<{ kind: string; holds: string | number | bigint; amount: string | number | bigint }> }>(
      "select kind, count(*) as holds, coalesce(sum(amount), 0) as amount from reservations where status = 'pending' group by kind",
    );
    const tasks = deps.taskGauges ? await deps.taskGauges() : { byStatus: [], lagSeconds: 0, queues: [] };
    return { holds: holds.rows, tasks };
  }

  return {
    async refresh() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${SCRAPE_QUERY_TIMEOUT_MS} ms`)), SCRAPE_QUERY_TIMEOUT_MS)),
      );
      for (const gauge of [pendingHolds, pendingAmount, videoTasks, pollerLag, queueDepth, queueOldest]) gauge.reset();
      try {
        const snapshot = await Promise.race([read(), timeout]);
        const currency = deps.currency();
        for (const kind of ['request', 'video']) {
          const row = snapshot.holds.find((r) => r.kind === kind);
          pendingHolds.set({ kind }, Number(row?.holds ?? 0));
          // Micro-units to currency units: a float is fine for a dashboard, never for money.
          pendingAmount.set({ kind, currency }, Number(BigInt(row?.amount ?? 0)) / 1e6);
        }
        for (const status of ['waiting', 'submitting', 'queued', 'in_progress', 'completed', 'failed', 'cancelled', 'review']) {
          videoTasks.set({ status }, snapshot.tasks.byStatus.find((r) => r.status === status)?.tasks ?? 0);
        }
        pollerLag.set(snapshot.tasks.lagSeconds);
        for (const queue of snapshot.tasks.queues) {
          queueDepth.set({ provider: queue.provider_id }, queue.depth);
          queueOldest.set({ provider: queue.provider_id }, queue.oldest_wait_s);
        }
      } catch (error) {
        failures.inc();
        deps.logger.warn({ err: (error as Error).message }, 'metrics: database gauges could not be read');
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
