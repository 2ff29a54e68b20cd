import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';

/** What a request leaves behind for operators; usage fields are filled by the flows that have them. */
export interface RequestLogEntry {
  request_id: string;
  customer_id: string | null;
  key_id: string | null;
  endpoint: string;
  model: string | null;
  provider: string | null;
  status: number;
  error_type: string | null;
  latency_ms: number;
  ttfb_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  video_seconds: number | null;
  video_tier: string | null;
  cost: bigint | null;
  usage_estimated: boolean;
  stream: boolean;
  upstream_request_id: string | null;
  created_at: Date;
}

export interface RequestLogRow extends Omit<RequestLogEntry, 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'> {
  id: bigint;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cache_read_tokens: bigint | null;
  cache_write_tokens: bigint | null;
}

export interface RequestLogFilter {
  customerId?: string;
  model?: string;
  endpoint?: string;
  from?: Date;
  to?: Date;
  limit: number;
  before?: bigint;
}

export interface RequestLogs {
  /** Queues the entry; never waits for the database. */
  write(entry: RequestLogEntry): void;
  /** Writes everything queued (tests, shutdown). */
  flush(): Promise<void>;
  list(filter: RequestLogFilter): Promise<{ rows: RequestLogRow[]; hasMore: boolean }>;
  close(): Promise<void>;
}

/**
 * Request logs are written in batches off the request path: one multi-row insert every
 * `flushMs` or `maxBatch` entries. A failed batch is logged and dropped rather than retried
 * forever, so a database outage cannot grow memory without bound.
 */
export function createRequestLogs(deps: { db: Knex; logger: Logger; flushMs?: number; maxBatch?: number; maxQueue?: number }): RequestLogs {
  const flushMs = deps.flushMs ?? 200;
  const maxBatch = deps.maxBatch ?? 500;
  const maxQueue = deps.maxQueue ?? 50_000;
  let queue: RequestLogEntry[] = [];
  let writing: Promise<void> = Promise.resolve();
  let dropped = 0;

  const toRow = (e: RequestLogEntry) => ({ ...e, cost: e.cost === null ? null : e.cost.toString() });

  function drain(): Promise<void> {
    writing = writing.then(async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          await deps.db('request_logs').insert(batch.map(toRow)).onConflict('request_id').ignore();
        } catch (error) {
          deps.logger.error({ err: error, rows: batch.length }, 'request log batch failed; rows dropped');
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
      const rows: RequestLogRow[] = await deps.db('request_logs')
        .modify((q) => {
          if (filter.customerId) q.where('customer_id', filter.customerId);
          if (filter.model) q.where('model', filter.model);
          if (filter.endpoint) q.where('endpoint', filter.endpoint);
          if (filter.from) q.where('created_at', '>=', filter.from);
          if (filter.to) q.where('created_at', '<', filter.to);
          if (filter.before !== undefined) q.where('id', '<', filter.before.toString());
        })
        .orderBy('id', 'desc')
        .limit(filter.limit + 1);
      return { rows: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
    },
    async close() {
      clearInterval(timer);
      await drain();
    },
  };
}
