import type { Knex } from 'knex';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';

/** What the domain learned about a request, for its log row. */
export interface LogFields {
  model?: string | null;
  provider?: string | null;
  ttfb_ms?: number | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  /** Billing components beyond the four token counts (1-hour cache writes, server tool requests, speed). */
  usage_detail?: Record<string, unknown> | null;
  cost?: bigint | null;
  usage_estimated?: boolean;
  stream?: boolean;
  /** The exchange did not end normally (client gone, upstream cut, shutdown, swept after a crash). */
  interrupted?: boolean;
  upstream_request_id?: string | null;
  /** Why the provider could not be reached (the OS error, or the failure's kind); access log only. */
  upstream_error?: string | null;
}

/** One row per public API request: who asked, what for, what it cost. Never prompts, outputs or keys. */
export interface RequestLogEntry extends Required<LogFields> {
  request_id: string;
  customer_id: string | null;
  key_id: string | null;
  endpoint: string;
  status: number;
  error_type: string | null;
  latency_ms: number;
  created_at: Date;
  /** The id the client sent (`x-request-id` behind a trusted proxy), kept beside the gateway's own. */
  client_request_id?: string | null;
  /** Written by a sweeper for a process it took for dead: the owner's own row, if it comes, replaces it. */
  swept?: boolean;
}

export interface RequestLogRow extends Omit<RequestLogEntry, 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'> {
  id: bigint;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cache_read_tokens: bigint | null;
  cache_write_tokens: bigint | null;
}

export const EMPTY_LOG_FIELDS: Required<LogFields> = {
  model: null,
  provider: null,
  ttfb_ms: null,
  input_tokens: null,
  output_tokens: null,
  cache_read_tokens: null,
  cache_write_tokens: null,
  usage_detail: null,
  cost: null,
  usage_estimated: false,
  stream: false,
  interrupted: false,
  upstream_request_id: null,
  upstream_error: null,
};

export interface RequestLogFilter {
  customerId?: string;
  keyId?: string;
  model?: string;
  endpoint?: string;
  status?: number;
  from?: Date;
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
}

const COLUMNS = [
  'request_id text',
  'customer_id text',
  'key_id text',
  'endpoint text',
  'model text',
  'provider text',
  'status int',
  'error_type text',
  'latency_ms int',
  'ttfb_ms int',
  'input_tokens bigint',
  'output_tokens bigint',
  'cache_read_tokens bigint',
  'cache_write_tokens bigint',
  'usage_detail jsonb',
  'cost bigint',
  'usage_estimated boolean',
  'stream boolean',
  'interrupted boolean',
  'upstream_request_id text',
  'created_at timestamptz',
  'client_request_id text',
  'swept boolean',
];
const NAMES = COLUMNS.map((c) => c.split(' ')[0]).join(', ');
const UPDATES = COLUMNS.map((c) => c.split(' ')[0])
  .filter((name) => name !== 'request_id')
  .map((name) => `${name} = excluded.${name}`)
  .join(', ');
/**
 * One row per request id. A sweeper's row (the process was taken for dead) gives way to the
 * owner's own, whichever is written last: the owner knows what the client received.
 */
export const INSERT_LOGS_SQL = `insert into request_logs (${NAMES})
  select ${NAMES} from jsonb_to_recordset(?::jsonb) as r(${COLUMNS.join(', ')})
  on conflict (request_id) do update set ${UPDATES} where request_logs.swept and not excluded.swept`;

/** Text PostgreSQL cannot hold (NUL, unpaired surrogates) becomes U+FFFD; client-named models may carry it. */
export const storable = (text: string | null): string | null =>
  text === null ? null : text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd').slice(0, 200);

export const logRow = (e: RequestLogEntry) => ({
  ...e,
  model: storable(e.model),
  error_type: storable(e.error_type),
  upstream_request_id: storable(e.upstream_request_id),
  cost: e.cost === null ? null : e.cost.toString(),
  client_request_id: e.client_request_id ?? null,
  swept: e.swept ?? false,
});

/**
 * Request logs are written in batches off the request path: one multi-row insert every
 * `flushMs` or `maxBatch` entries. A batch the database refuses is retried entry by entry so one
 * bad row cannot take others with it; a database outage keeps at most `maxQueue` entries.
 */
export function createRequestLogs(deps: { db: Knex; logger: Logger; flushMs?: number; maxBatch?: number; maxQueue?: number }): RequestLogs {
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
          if (filter.from) q.where('created_at', '>=', filter.from);
          if (filter.to) q.where('created_at', '<', filter.to);
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
  };
}
