// The request log's row: what the domain learned about a request, and the one statement that
// writes a batch of rows. Never prompts, outputs or keys.

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
  /** The price version the request was priced at (its unit prices are in price_versions). */
  price_version_id?: bigint | null;
  /** What was held before the call (money, after free units), and from where. */
  hold_amount?: bigint | null;
  hold_source?: 'grant' | 'reservation' | null;
  /** Free units the hold took from the model's allowance, and those the charge spent (with their value). */
  free_units_held?: bigint | null;
  free_units?: bigint | null;
  free_amount?: bigint | null;
  /** Of the cost, what the balance could not cover and was recorded as debt. */
  debt?: bigint | null;
  /** Why usage was estimated (usage_estimated): which counts the provider did not report. */
  estimate_reason?: string | null;
  /** The provider's usage object as it reported it (counts, tiers; never content). */
  upstream_usage?: Record<string, unknown> | null;
  /** The model name the client sent (an alias, a name a pattern matched); `model` is the id billed. */
  requested_model?: string | null;
  /** The client's session id (src/domain/passthrough/affinity.ts: as sent when short and printable, else its hash). */
  session_id?: string | null;
  /** The gateway lowered the output limit to a substitute model's cap: what the client asked, and what was sent. */
  max_tokens_requested?: number | null;
  max_tokens_capped?: number | null;
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

type Counts = 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens';
type Amounts = 'price_version_id' | 'hold_amount' | 'free_units_held' | 'free_units' | 'free_amount' | 'debt';

export interface RequestLogRow extends Omit<RequestLogEntry, Counts | Amounts> {
  id: bigint;
  /** When the row was written (or replaced): the clock at the insert, what time windows read. */
  logged_at: Date;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cache_read_tokens: bigint | null;
  cache_write_tokens: bigint | null;
  price_version_id: bigint | null;
  hold_amount: bigint | null;
  free_units_held: bigint | null;
  free_units: bigint | null;
  free_amount: bigint | null;
  debt: bigint | null;
}

/**
 * A request log entry of every field null or empty, its head (who, what, when) first, as
 * `{ request_id, ..., created_at, ...EMPTY_LOG_FIELDS }` would be, but one literal of one shape:
 * the access log stores each request's values into it without adding a property (a spread of
 * EMPTY_LOG_FIELDS added its 27 one by one, growing the object as it went, on every request).
 */
export const newLogEntry = (): RequestLogEntry => ({
  request_id: '',
  client_request_id: null,
  customer_id: null,
  key_id: null,
  endpoint: '',
  status: 0,
  error_type: null,
  latency_ms: 0,
  created_at: new Date(0),
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
  price_version_id: null,
  hold_amount: null,
  hold_source: null,
  free_units_held: null,
  free_units: null,
  free_amount: null,
  debt: null,
  estimate_reason: null,
  upstream_usage: null,
  requested_model: null,
  session_id: null,
  max_tokens_requested: null,
  max_tokens_capped: null,
});

/** Every field of LogFields empty: a new entry without its head. */
export const EMPTY_LOG_FIELDS: Required<LogFields> = (() => {
  const fields: Partial<RequestLogEntry> = newLogEntry();
  for (const head of ['request_id', 'client_request_id', 'customer_id', 'key_id', 'endpoint', 'status', 'error_type', 'latency_ms', 'created_at'] as const)
    delete fields[head];
  return fields as Required<LogFields>;
})();

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
  'price_version_id bigint',
  'hold_amount bigint',
  'hold_source text',
  'free_units_held bigint',
  'free_units bigint',
  'free_amount bigint',
  'debt bigint',
  'estimate_reason text',
  'upstream_usage jsonb',
  'requested_model text',
  'session_id text',
  'max_tokens_requested int',
  'max_tokens_capped int',
];
/** The request_logs columns the insert writes, in order. */
export const LOG_COLUMN_NAMES = COLUMNS.map((c) => c.split(' ')[0]!);
const NAMES = LOG_COLUMN_NAMES.join(', ');
const UPDATES = COLUMNS.map((c) => c.split(' ')[0])
  .filter((name) => name !== 'request_id')
  .map((name) => `${name} = excluded.${name}`)
  .join(', ');
/**
 * One row per request id. A sweeper's row (the process was taken for dead) gives way to the
 * owner's own, whichever is written last: the owner knows what the client received. Both are dated
 * by the arrival the id carries (the partition key, part of every unique key), so they meet here.
 * logged_at is the clock at the insert (its default), renewed on a replacement, so the new row is
 * in the time window of when it was written (docs/money.md, "The export watermark").
 */
export const INSERT_LOGS_SQL = `insert into request_logs (${NAMES})
  select ${NAMES} from jsonb_to_recordset(?::jsonb) as r(${COLUMNS.join(', ')})
  on conflict (request_id, created_at) do update set ${UPDATES}, logged_at = clock_timestamp() where request_logs.swept and not excluded.swept`;

/** Text PostgreSQL cannot hold (NUL, unpaired surrogates) becomes U+FFFD; client-named models may carry it. */
export const storable = (text: string | null): string | null =>
  text === null ? null : text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd').slice(0, 200);

const text = (value: bigint | null | undefined): string | null => (value === null || value === undefined ? null : value.toString());

/**
 * The row as the insert's JSON takes it, every column of COLUMNS named in its order (a unit test
 * holds the two together). A literal rather than `{ ...e, model: storable(e.model), ... }`: in this
 * V8 (Node 20) properties after a spread take a slow path, 2.6 us a row against 0.2 us.
 */
export const logRow = (e: RequestLogEntry) => ({
  request_id: e.request_id,
  customer_id: e.customer_id,
  key_id: e.key_id,
  endpoint: e.endpoint,
  model: storable(e.model),
  provider: e.provider,
  status: e.status,
  error_type: storable(e.error_type),
  latency_ms: e.latency_ms,
  ttfb_ms: e.ttfb_ms,
  input_tokens: e.input_tokens,
  output_tokens: e.output_tokens,
  cache_read_tokens: e.cache_read_tokens,
  cache_write_tokens: e.cache_write_tokens,
  usage_detail: e.usage_detail,
  cost: text(e.cost),
  usage_estimated: e.usage_estimated,
  stream: e.stream,
  interrupted: e.interrupted,
  upstream_request_id: storable(e.upstream_request_id),
  created_at: e.created_at,
  client_request_id: e.client_request_id ?? null,
  swept: e.swept ?? false,
  price_version_id: text(e.price_version_id),
  hold_amount: text(e.hold_amount),
  hold_source: e.hold_source,
  free_units_held: text(e.free_units_held),
  free_units: text(e.free_units),
  free_amount: text(e.free_amount),
  debt: text(e.debt),
  estimate_reason: storable(e.estimate_reason ?? null),
  upstream_usage: e.upstream_usage,
  requested_model: storable(e.requested_model ?? null),
  session_id: storable(e.session_id ?? null),
  max_tokens_requested: e.max_tokens_requested,
  max_tokens_capped: e.max_tokens_capped,
});
