// The receipt of a request whose log row retention removed (REQUEST_LOG_RETENTION_DAYS,
// src/logs/retention.ts). The journal is never removed, so the money is still exact: the hold, the
// charge, the debt, the free units, the price version and its unit prices. What only the log row
// knew is gone: the HTTP status, the usage counts the provider reported and those billed, the model
// name the client sent, the provider. Answered only for a request older than the recorded horizon
// that has journal entries; any other id is not found, as before.
import type { Knex } from 'knex';
import { EMPTY_LOG_FIELDS, type RequestLogRow } from '../../logs/request-logs.ts';
import { requestIdTime } from '../../shared/ids.ts';
import { entriesOf } from './receipt-repo.ts';

export interface RemovedLogRow {
  /** What the journal says of the request, in the shape of its log row (counts and status unknown). */
  row: RequestLogRow;
  /** Log rows of requests that arrived before this were removed. */
  removedBefore: Date;
}

/** The request's row as the journal can rebuild it, when retention removed it; undefined otherwise. */
export async function removedLogRow(db: Knex, requestId: string, customerId: string | undefined): Promise<RemovedLogRow | undefined> {
  if (!requestId.startsWith('req_')) return undefined;
  const horizon = await db('request_log_retention').first('removed_before');
  if (!horizon) return undefined;
  const removedBefore = new Date(horizon.removed_before);
  const entries = (await entriesOf(db, requestId)).filter((e) => customerId === undefined || e.customer_id === customerId);
  if (entries.length === 0) return undefined;
  // The arrival its id carries; an id minted before ids carried one is dated by its first entry.
  const first = new Date(entries[0]!.created_at);
  const carried = requestIdTime(requestId);
  const arrived = carried.getTime() > 0 && carried < first ? carried : first;
  if (arrived >= removedBefore) return undefined;
  return { row: rowFromJournal(requestId, entries, arrived), removedBefore };
}

/** A journal entry as the receipts read it. */
type EntryRow = Awaited<ReturnType<typeof entriesOf>>[number];

function rowFromJournal(requestId: string, entries: EntryRow[], arrived: Date): RequestLogRow {
  const purpose = Object.assign({}, ...entries.map((e) => e.purpose ?? {})) as Record<string, unknown>;
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  // A draw from a grant ends in one charge entry, which names the bound it drew as `reserved`.
  const charge = entries.find((e) => e.kind === 'charge');
  const reserved = charge ? text(charge.purpose?.reserved) : null;
  return {
    ...EMPTY_LOG_FIELDS,
    id: 0n,
    request_id: requestId,
    customer_id: entries[0]!.customer_id,
    key_id: entries.find((e) => e.key_id)?.key_id ?? text(purpose.key_id),
    endpoint: text(purpose.endpoint) ?? '', // '': not named (null on the receipt)
    model: text(purpose.model),
    status: 0, // not known any more (null on the receipt)
    error_type: null,
    latency_ms: 0,
    created_at: arrived,
    logged_at: arrived, // when the row was written is gone with it
    usage_estimated: purpose.estimated === true,
    hold_source: charge ? 'grant' : null,
    hold_amount: reserved === null ? null : BigInt(reserved),
    input_tokens: null,
    output_tokens: null,
    cache_read_tokens: null,
    cache_write_tokens: null,
    price_version_id: null,
    free_units_held: null,
    free_units: null,
    free_amount: null,
    debt: null,
    swept: purpose.swept === true,
  };
}
