import type { Knex } from 'knex';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';
import { BILLABLE_ENDPOINTS } from './billable.ts';
import { INSERT_LOGS_SQL, logRow, type RequestLogEntry, type RequestLogRow } from './log-row.ts';
import { createRequestLogUpkeep, type RequestLogUpkeep, type UpkeepOptions } from './retention.ts';

export { EMPTY_LOG_FIELDS, newLogEntry, type LogFields, type RequestLogEntry, type RequestLogRow } from './log-row.ts';

export interface RequestLogFilter {
  customerId?: string;
  keyId?: string;
  model?: string;
  endpoint?: string;
  status?: number;
  /** true: billable requests only (billable.ts); false: only the others. */
  billable?: boolean;
  /** Inclusive, on logged_at (when the row was written), as `to`. */
  from?: Date;
  /** Exclusive, on logged_at: final only at or below the watermark (src/domain/account/window.ts). */
  to?: Date;
  limit: number;
  before?: bigint;
  after?: bigint;
}

export interface RequestLogs {
  /** Queues the entry; never waits for the database. */
  write(entry: RequestLogEntry): void;
  /** Writes everything queued (tests, shutdown). */
  flush(): Promise<void>;
  list(filter: RequestLogFilter): Promise<{ rows: RequestLogRow[]; hasMore: boolean }>;
  close(): Promise<void>;
  /** The monthly partitions ahead, and retention (retention.ts). */
  readonly upkeep: RequestLogUpkeep;
}

/**
 * Request logs are written in batches off the request path: one multi-row insert every
 * `flushMs` or `maxBatch` entries. A batch the database refuses is retried entry by entry so one
 * bad row cannot take others with it; a database outage keeps at most `maxQueue` entries.
 */
export function createRequestLogs(deps: {
  db: Knex;
  logger: Logger;
  flushMs?: number;
  maxBatch?: number;
  maxQueue?: number;
  upkeep: Omit<UpkeepOptions, 'db' | 'logger'>;
}): RequestLogs {
  const flushMs = deps.flushMs ?? 200;
  const maxBatch = deps.maxBatch ?? 500;
  const maxQueue = deps.maxQueue ?? 50_000;
  let queue: RequestLogEntry[] = [];
  let writing: Promise<void> = Promise.resolve();
  let dropped = 0;

  const insert = (batch: RequestLogEntry[]) => deps.db.raw(INSERT_LOGS_SQL, [JSON.stringify(batch.map(logRow))]);

  /**
   * Writes what is queued now, in batches; rows that arrive meanwhile wait for the next tick. (A
   * drain that also took the rows arriving during its inserts would insert back to back whenever
   * an insert is slower than the arrivals, as on the embedded database with its sync per commit.)
   */
  function drain(): Promise<void> {
    const taken = queue;
    queue = [];
    writing = writing.then(async () => {
      for (let start = 0; start < taken.length; start += maxBatch) {
        const batch = taken.slice(start, start + maxBatch);
        try {
          // One JSON parameter for the whole batch: a 21-column multi-row insert with bindings
          // cost the event loop milliseconds per flush under load.
          await insert(batch);
        } catch (error) {
          if (batch.length > 1 && !isDatabaseUnavailable(error)) {
            for (const entry of batch)
              await insert([entry]).catch((e: unknown) => deps.logger.error({ err: e, request_id: entry.request_id }, 'request log row refused; dropped'));
          } else {
            deps.logger.error({ err: error, rows: taken.length - start }, 'request log batch failed; kept for the next flush');
            queue = [...taken.slice(start), ...queue].slice(0, maxQueue);
            return;
          }
        }
      }
    });
    return writing;
  }

  const timer = setInterval(() => {
    if (queue.length > 0) void drain();
  }, flushMs);
  timer.unref();

  return {
    write(entry) {
      if (queue.length >= maxQueue) {
        if (dropped++ % 1000 === 0) deps.logger.error({ dropped }, 'request log queue full; dropping entries');
        return;
      }
      queue.push(entry);
      if (queue.length >= maxBatch) void drain();
    },
    flush: drain,
    async list(filter) {
      const rows: RequestLogRow[] = await deps
        .db('request_logs')
        .modify((q) => {
          if (filter.customerId) q.where('customer_id', filter.customerId);
          if (filter.keyId) q.where('key_id', filter.keyId);
          if (filter.model) q.where('model', filter.model);
          if (filter.endpoint) q.where('endpoint', filter.endpoint);
          if (filter.status !== undefined) q.where('status', filter.status);
          if (filter.billable === true) q.where((w) => w.whereIn('endpoint', BILLABLE_ENDPOINTS).orWhereNotNull('price_version_id'));
          if (filter.billable === false) q.whereNotIn('endpoint', BILLABLE_ENDPOINTS).whereNull('price_version_id');
          if (filter.from) q.where('logged_at', '>=', filter.from);
          if (filter.to) q.where('logged_at', '<', filter.to);
          if (filter.before !== undefined) q.where('id', '<', filter.before.toString());
          if (filter.after !== undefined) q.where('id', '>', filter.after.toString());
        })
        .orderBy('id', filter.after !== undefined ? 'asc' : 'desc')
        .limit(filter.limit + 1);
      return { rows: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
    },
    async close() {
      clearInterval(timer);
      await drain();
    },
    upkeep: createRequestLogUpkeep({ db: deps.db, logger: deps.logger, ...deps.upkeep }),
  };
}
