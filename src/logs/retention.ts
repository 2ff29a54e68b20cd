// Upkeep of the request log, partitioned by month of created_at (migration 20261128180000): the
// partitions of this month and the next two exist before rows arrive (at start and on every run),
// and with REQUEST_LOG_RETENTION_DAYS set, rows older than that are removed: months wholly before
// the horizon by dropping their partition, the rest of the month the horizon falls in (and any row
// of the default partition) in batches of bounded size. The journal is never touched: a receipt of
// a removed row is rebuilt from it and says so (src/domain/billing/removed-receipt.ts), which is
// why the horizon is recorded before anything is removed. Any replica may tick it (src/jobs/cron.ts
// schedules it); the lease it is handed (src/jobs/lease.ts, given by gateway.ts) runs it once per
// period across them.
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';

/** How many months beyond the current one have their partition ready. */
export const PARTITIONS_AHEAD = 2;
/** Rows removed per statement: each is its own short transaction. */
export const RETENTION_BATCH = 5_000;

export interface UpkeepRun {
  partitionsCreated: number;
  partitionsDropped: number;
  rowsDeleted: number;
  /** Rows older than this are gone (null: retention off). */
  removedBefore: Date | null;
}

export interface RequestLogUpkeep {
  /** Creates the partitions of this month and the next ones that are missing (also at start). */
  preparePartitions(): Promise<number>;
  /** One run, once across replicas per period: partitions ahead, then retention when it is on. */
  run(stop?: AbortSignal): Promise<UpkeepRun | 'skipped'>;
}

/** A held lease: renewed as a long run goes on; false once it was lost (the run stops). */
export interface UpkeepLease {
  renew(): Promise<boolean>;
}

/** Runs `work` under the upkeep's lease, once across replicas per period; 'skipped' when another has it. */
export type OnceAcrossReplicas = <T>(work: (lease: UpkeepLease) => Promise<T>) => Promise<T | 'skipped'>;

export interface UpkeepOptions {
  db: Knex;
  logger: Logger;
  /** REQUEST_LOG_RETENTION_DAYS; undefined: rows are kept. */
  retentionDays: number | undefined;
  /** The upkeep's lease (src/jobs/lease.ts). */
  once: OnceAcrossReplicas;
  batchSize?: number;
}

export function createRequestLogUpkeep(options: UpkeepOptions): RequestLogUpkeep {
  const { db, logger } = options;
  const batchSize = options.batchSize ?? RETENTION_BATCH;

  async function preparePartitions(): Promise<number> {
    const { rows } = await db.raw<{ rows: Array<{ created: boolean }> }>(
      `select request_logs_ensure_partition(now() + make_interval(months => n)) as created from generate_series(0, ?) n`,
      [PARTITIONS_AHEAD],
    );
    return rows.filter((r) => r.created).length;
  }

  /** Drops the partitions whose whole month is before `horizon`. */
  async function dropMonthsBefore(horizon: Date): Promise<number> {
    const { rows } = await db.raw<{ rows: Array<{ name: string; ends: Date }> }>(
      `select c.relname as name,
              ((to_date(substr(c.relname, 15, 4) || substr(c.relname, 20, 2), 'YYYYMM') + interval '1 month') at time zone 'UTC') as ends
         from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'request_logs'::regclass and c.relname ~ '^request_logs_y[0-9]{4}m[0-9]{2}$'
        order by 1`,
    );
    let dropped = 0;
    for (const { name, ends } of rows) {
      if (new Date(ends).getTime() > horizon.getTime()) continue;
      // Dropping a partition locks the parent for a moment: never wait long for it (the next run retries).
      await db.transaction(async (trx) => {
        await trx.raw(`set local lock_timeout = '5s'`);
        await trx.raw(`drop table if exists "${name}"`);
      });
      dropped++;
    }
    return dropped;
  }

  /** Removes rows older than `horizon` in batches, until none is left, the lease is lost or the process stops. */
  async function deleteInBatches(sql: string, horizon: Date, lease: UpkeepLease, stop?: AbortSignal): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = (await db.raw(sql, [horizon, batchSize, horizon])) as { rowCount?: number };
      const count = result.rowCount ?? 0;
      deleted += count;
      if (count < batchSize || stop?.aborted || !(await lease.renew())) return deleted;
    }
  }

  async function retain(days: number, lease: UpkeepLease, stop?: AbortSignal): Promise<Omit<UpkeepRun, 'partitionsCreated'>> {
    const { rows } = await db.raw<{ rows: Array<{ horizon: Date }> }>(`select now() - make_interval(days => ?) as horizon`, [days]);
    const horizon = new Date(rows[0]!.horizon);
    // Recorded first: from here on a receipt of a row older than it is answered from the journal.
    await db.raw(
      `insert into request_log_retention (id, removed_before) values (1, ?)
       on conflict (id) do update set removed_before = greatest(request_log_retention.removed_before, excluded.removed_before)`,
      [horizon],
    );
    const partitionsDropped = await dropMonthsBefore(horizon);
    const rowsDeleted = await deleteInBatches(
      `with doomed as (select id, created_at from request_logs where created_at < ? order by created_at limit ?)
       delete from request_logs l using doomed d where l.id = d.id and l.created_at = d.created_at and l.created_at < ?`,
      horizon,
      lease,
      stop,
    );
    await deleteInBatches(
      `with doomed as (select request_id from request_log_legacy_ids where created_at < ? order by created_at limit ?)
       delete from request_log_legacy_ids l using doomed d where l.request_id = d.request_id and l.created_at < ?`,
      horizon,
      lease,
      stop,
    );
    return { partitionsDropped, rowsDeleted, removedBefore: horizon };
  }

  const upkeep: RequestLogUpkeep = {
    preparePartitions,
    run(stop) {
      return options.once(async (lease) => {
        const partitionsCreated = await preparePartitions();
        const days = options.retentionDays;
        const retained = days === undefined ? { partitionsDropped: 0, rowsDeleted: 0, removedBefore: null } : await retain(days, lease, stop);
        const run = { partitionsCreated, ...retained };
        if (run.partitionsCreated + run.partitionsDropped + run.rowsDeleted > 0)
          logger.info(
            {
              job: 'request-log-upkeep',
              partitions_created: run.partitionsCreated,
              partitions_dropped: run.partitionsDropped,
              rows_deleted: run.rowsDeleted,
              removed_before: run.removedBefore?.toISOString(),
            },
            'request log upkeep',
          );
        return run;
      });
    },
  };
  return upkeep;
}
