import type { HoldView } from '../../domain/holds/service.ts';
import { formatMicros } from '../../shared/money.ts';
import { isLedgerError } from '../../ledger/errors.ts';
import type { Balance, Posted, PricedDifference, ReconciliationMismatch } from '../../ledger/service.ts';
import type { RequestContext } from '../handler.ts';
import { deliveredSoFar } from '../../holds/delivered.ts';
import type { EntryRow } from '../../ledger/repo.ts';
import type { RequestLogRow } from '../../logs/request-logs.ts';
import type { AdminComponents } from '../../types.ts';

type Schemas = AdminComponents['schemas'];

export const entryToWire = (row: EntryRow): Schemas['LedgerEntry'] => ({
  id: row.id.toString(),
  object: 'ledger_entry',
  customer_id: row.customer_id,
  kind: row.kind,
  reference: row.reference,
  reservation_ref: row.reservation_ref,
  amount: formatMicros(row.amount),
  debt: formatMicros(BigInt(row.debt_delta ?? 0n)),
  free_units: Number(row.free_units),
  free_amount: formatMicros(row.free_amount),
  price_version_id: row.price_version_id === null ? null : row.price_version_id.toString(),
  purpose: row.purpose,
  created_at: new Date(row.created_at).toISOString(),
});

export const walletToWire = (customerId: string, currency: string, balance: Balance): Schemas['Wallet'] => ({
  object: 'wallet',
  customer_id: customerId,
  currency,
  credits: formatMicros(balance.credits),
  debits: formatMicros(balance.debits),
  reserved: formatMicros(balance.reserved),
  available: formatMicros(balance.available),
  debt: formatMicros(balance.debt),
});

/**
 * What a posting answers (a credit, an adjustment): the journal row, the wallet after it, and
 * whether the reference had been posted before (200 then, 201 for a new posting).
 */
export async function postingReply<O extends 'credit' | 'adjustment'>(
  ctx: RequestContext,
  object: O,
  customerId: string,
  posted: Posted,
): Promise<{ status: 200 | 201; body: { object: O; replayed: boolean; entry: Schemas['LedgerEntry']; wallet: Schemas['Wallet'] } }> {
  const balance = await ctx.services.ledger.balance(customerId);
  if (isLedgerError(balance)) throw new Error(`wallet vanished after a posting: ${balance}`);
  const body = {
    object,
    replayed: posted.replayed,
    entry: entryToWire(posted.entry),
    wallet: walletToWire(customerId, ctx.services.discovery.currency(), balance),
  };
  return { status: posted.replayed ? 200 : 201, body };
}

export const mismatchToWire = (m: ReconciliationMismatch): Schemas['Reconciliation']['mismatches'][number] => ({
  customer_id: m.customer_id,
  column: m.column,
  wallet: formatMicros(m.wallet),
  expected: formatMicros(m.expected),
});

export const pricedDifferenceToWire = (d: PricedDifference): Schemas['Reconciliation']['priced']['differences'][number] => ({
  id: d.ref,
  customer_id: d.customerId,
  reason: d.reason,
  priced: d.priced === null ? null : formatMicros(d.priced),
  charged: formatMicros(d.charged),
  debt: formatMicros(d.debt),
  free_amount: formatMicros(d.freeAmount),
  waived: formatMicros(d.waived),
  difference: formatMicros(d.difference),
});

const count = (value: bigint | null): number | null => (value === null ? null : Number(value));

export const requestLogToWire = (row: RequestLogRow): Schemas['RequestLog'] => ({
  id: row.id.toString(),
  object: 'request_log',
  request_id: row.request_id,
  client_request_id: row.client_request_id ?? null,
  customer_id: row.customer_id,
  key_id: row.key_id,
  endpoint: row.endpoint,
  model: row.model,
  requested_model: row.requested_model ?? null,
  session_id: row.session_id ?? null,
  max_tokens_requested: row.max_tokens_requested ?? null,
  max_tokens_capped: row.max_tokens_capped ?? null,
  provider: row.provider,
  status: row.status,
  error_type: row.error_type,
  latency_ms: row.latency_ms,
  ttfb_ms: row.ttfb_ms,
  input_tokens: count(row.input_tokens),
  output_tokens: count(row.output_tokens),
  cache_read_tokens: count(row.cache_read_tokens),
  cache_write_tokens: count(row.cache_write_tokens),
  usage_detail: row.usage_detail,
  interrupted: row.interrupted,
  cost: row.cost === null ? null : formatMicros(BigInt(row.cost)),
  usage_estimated: row.usage_estimated,
  stream: row.stream,
  upstream_request_id: row.upstream_request_id,
  created_at: new Date(row.created_at).toISOString(),
  logged_at: new Date(row.logged_at).toISOString(),
});

const formatOptional = (amount: bigint | undefined): string | null => (amount === undefined ? null : formatMicros(amount));

export const holdToWire = (hold: HoldView): Schemas['Reservation'] => ({
  object: 'reservation',
  ref: hold.ref,
  customer_id: hold.customer_id,
  kind: hold.kind,
  status: hold.status,
  amount: formatMicros(BigInt(hold.amount)),
  owner: hold.owner,
  owner_alive: hold.ownerAlive,
  delivered: formatOptional(deliveredSoFar(hold)),
  purpose: hold.purpose,
  created_at: new Date(hold.created_at).toISOString(),
  resolved_at: hold.resolved_at ? new Date(hold.resolved_at).toISOString() : null,
});
