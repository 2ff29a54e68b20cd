import type { ApiKey } from '../../customers/service.ts';
import type { FreeQuotaView } from '../../domain/account/service.ts';
import type { UsageRow } from '../../domain/account/usage.ts';
import type { AccountBalance, KeySpend } from '../../ledger/index.ts';
import type { RequestLogRow } from '../../logs/request-logs.ts';
import { formatMicros } from '../../shared/money.ts';
import type { PublicComponents } from '../../types.ts';
import { limitsToWire } from './admin.ts';
import { requestLogToWire } from './ledger.ts';

type Schemas = PublicComponents['schemas'];

export const walletToWire = (currency: string, balance: AccountBalance, free: FreeQuotaView[]): Schemas['CustomerWallet'] => ({
  object: 'wallet',
  currency,
  available: formatMicros(balance.available),
  reserved: formatMicros(balance.reserved),
  free_quota: free.map((q) => ({
    model: q.model,
    unit: q.unit,
    period: q.period,
    amount: q.amount,
    used: Number(q.used),
    left: Math.max(0, q.amount - Number(q.used)),
    period_end: q.periodEnd.toISOString(),
  })),
});

export const accountKeyToWire = (key: ApiKey, spend: KeySpend, currency: string): Schemas['AccountKey'] => ({
  object: 'api_key',
  id: key.id,
  name: key.name,
  redacted_key: key.redacted,
  allowed_models: key.allowedModels,
  expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
  limits: limitsToWire(key.limits),
  spend: { day: formatMicros(spend.day), month: formatMicros(spend.month), total: formatMicros(spend.total) },
  currency,
  created_at: key.createdAt.toISOString(),
});

/** The operators' row without internal routing (provider, upstream request id). */
export const accountRequestToWire = (row: RequestLogRow): Schemas['AccountRequestLog'] => {
  const { provider: _provider, upstream_request_id: _upstream, ...view } = requestLogToWire(row);
  return view;
};

export const usageRowToWire = (row: UsageRow): Schemas['UsageRow'] => ({
  date: row.date,
  model: row.model,
  requests: row.requests,
  input_tokens: row.inputTokens,
  output_tokens: row.outputTokens,
  video_seconds: row.videoSeconds,
  spend: formatMicros(row.spend),
});

/** A legacy dashboard number: micro-units as a plain number of currency units (display only). */
export const legacyAmount = (micros: bigint): number => Number(formatMicros(micros));
