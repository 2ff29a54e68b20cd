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

const COLUMNS = [
  'request_id text', 'customer_id text', 'key_id text', 'endpoint text', 'model text', 'provider text', 'status int',
  'error_type text', 'latency_ms int', 'ttfb_ms int', 'input_tokens bigint', 'output_tokens bigint',
  'cache_read_tokens bigint', 'cache_write_tokens bigint', 'video_seconds int', 'video_tier text', 'cost bigint',
  'usage_estimated boolean', 'stream boolean', 'upstream_request_id text', 'created_at timestamptz',
];
const NAMES = COLUMNS.map((c) => c.split(' ')[0]).join(', ');
const INSERT_BATCH_SQL = `insert into request_logs (${NAMES})
  select ${NAMES} from jsonb_to_recordset(?::jsonb) as r(${COLUMNS.join(', ')})
  on conflict (request_id) do nothing`;

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

  // A client-named model may carry characters PostgreSQL text cannot hold (NUL).
  const toRow = (e: RequestLogEntry) => ({ ...e, model: e.model?.replaceAll('\u0000', '') ?? null, cost: e.cost === null ? null : e.cost.toString() });

  function drain(): Promise<void> {
    writing = writing.then(async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          // One JSON parameter for the whole batch: building a 21-column multi-row insert with
          // bindings cost the event loop milliseconds per flush under load.
          await deps.db.raw(INSERT_BATCH_SQL, [JSON.stringify(batch.map(toRow))]);
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
