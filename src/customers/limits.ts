// Per-key limits as operators set them. They are enforced by the ledger, inside the reservation
// transaction, from the key's row (src/ledger/key-limits.ts): this file only shapes and stores them.
import { MAX_AMOUNT, parseMicros } from '../shared/money.ts';

export type SpendPeriod = 'day' | 'month' | 'total';

export interface KeyLimits {
  /** Requests that reach a reservation in any 60 s window. */
  requestsPerMinute: number | null;
  /** Requests (and video tasks) holding a reservation at once. */
  maxConcurrent: number | null;
  /** Posted plus reserved spend in the UTC day, the UTC month, or ever. */
  spend: { amount: bigint; period: SpendPeriod } | null;
}

export const NO_LIMITS: KeyLimits = { requestsPerMinute: null, maxConcurrent: null, spend: null };

export const hasLimits = (limits: KeyLimits): boolean => limits.requestsPerMinute !== null || limits.maxConcurrent !== null || limits.spend !== null;

/** A change as operators send it: an absent field stays as it is, null removes the limit. */
export interface KeyLimitsPatch {
  requests_per_minute?: number | null;
  max_concurrent?: number | null;
  spend_limit?: { amount: string; period: SpendPeriod } | null;
}

export interface LimitColumns {
  requests_per_minute: number | null;
  max_concurrent: number | null;
  spend_limit: bigint | string | null;
  spend_period: SpendPeriod | null;
}

export function limitsOfRow(row: LimitColumns): KeyLimits {
  return {
    requestsPerMinute: row.requests_per_minute,
    maxConcurrent: row.max_concurrent,
    spend: row.spend_limit === null || row.spend_period === null ? null : { amount: BigInt(row.spend_limit), period: row.spend_period },
  };
}

/** The columns a patch changes; 'invalid' when a spend amount is out of range. */
export function limitColumnsOf(patch: KeyLimitsPatch | null): Partial<LimitColumns> | 'invalid' {
  if (patch === null) return { requests_per_minute: null, max_concurrent: null, spend_limit: null, spend_period: null };
  const columns: Partial<LimitColumns> = {};
  if (patch.requests_per_minute !== undefined) columns.requests_per_minute = patch.requests_per_minute;
  if (patch.max_concurrent !== undefined) columns.max_concurrent = patch.max_concurrent;
  if (patch.spend_limit === null) Object.assign(columns, { spend_limit: null, spend_period: null });
  else if (patch.spend_limit !== undefined) {
    const amount = parseMicros(patch.spend_limit.amount); // the spec's pattern admits only plain decimals
    if (amount > MAX_AMOUNT) return 'invalid';
    Object.assign(columns, { spend_limit: amount.toString(), spend_period: patch.spend_limit.period });
  }
  return columns;
}
