// A customer's own view of its account, authenticated by any of its keys: wallet, the calling key,
// its request log, its usage, and the legacy dashboard shapes chat clients read a balance from.
// Everything is scoped to the caller's customer (and, for the key, to the calling key): no query
// here takes a customer id from the request.
import type { Knex } from 'knex';
import type { Caller, CustomerService, ApiKey } from '../../customers/service.ts';
import type { AccountBalance, KeySpend, Ledger } from '../../ledger/service.ts';
import { periodEnd } from '../../ledger/free-quota.ts';
import type { RequestLogFilter, RequestLogRow, RequestLogs } from '../../logs/request-logs.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import { AccountError } from './errors.ts';
import { usageByDay, type UsageRow } from './usage.ts';
import { finalWindow } from './window.ts';

export interface FreeQuotaView {
  model: string;
  unit: 'tokens' | 'seconds' | 'requests';
  period: 'day' | 'month';
  amount: number;
  used: bigint;
  periodEnd: Date;
}

export interface RequestFilter {
  limit: number;
  after?: bigint;
  model?: string;
  keyId?: string;
  endpoint?: string;
  status?: number;
  billable?: boolean;
  from?: Date;
  to?: Date;
}

/** Rows newest first, and the watermark they were read below. */
export interface RequestLogPage {
  rows: RequestLogRow[];
  hasMore: boolean;
  watermark: Date;
}

/** The legacy OpenAI dashboard numbers: clients show `hardLimit - used` as the balance. */
export interface LegacyBilling {
  hardLimit: bigint;
  used: bigint;
  /** Unix seconds of the key's expiry; 0: never. */
  accessUntil: number;
}

/** UTC days, YYYY-MM-DD, both inclusive. */
export interface UsageRange {
  start?: string;
  end?: string;
}

const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export function createAccountService(deps: {
  db: Knex;
  ledger: Ledger;
  customers: CustomerService;
  discovery: DiscoveryService;
  requestLogs: RequestLogs;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  /** A page of the request log, from rows logged before the watermark only (425 past it). */
  async function requestLog(filter: RequestLogFilter): Promise<RequestLogPage | Failure> {
    const window = await finalWindow(deps.db, filter);
    if (window instanceof Failure) return window;
    return { ...(await deps.requestLogs.list({ ...filter, to: window.to })), watermark: window.watermark };
  }

  async function callingKey(caller: Caller): Promise<ApiKey> {
    const key = await deps.customers.getApiKey(caller.keyId);
    if (typeof key === 'string') throw new Error(`the calling key ${caller.keyId} vanished`); // authenticated a moment ago
    return key;
  }

  async function usageOf(customerId: string | undefined, range: UsageRange): Promise<{ start: string; end: string; rows: UsageRow[] } | Failure> {
    const today = now().toISOString().slice(0, 10);
    const end = range.end ?? today;
    const start = range.start ?? `${(range.end ?? today).slice(0, 8)}01`;
    const from = new Date(`${start}T00:00:00Z`);
    const to = new Date(new Date(`${end}T00:00:00Z`).getTime() + DAY_MS);
    if (from >= to) return new Failure(AccountError.InvalidDateRange, 'start_date must not be after end_date.', { param: 'start_date' });
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
      return new Failure(AccountError.InvalidDateRange, `At most ${MAX_RANGE_DAYS} days at a time.`, { param: 'end_date' });
    return { start, end, rows: await usageByDay(deps.db, customerId, from, to) };
  }

  return {
    currency: () => deps.discovery.currency(),

    async wallet(caller: Caller): Promise<{ balance: AccountBalance; freeQuota: FreeQuotaView[] }> {
      const models = deps.discovery.visibleModels(caller).flatMap((m) => (m.free_quota ? [{ modelId: m.id, quota: m.free_quota }] : []));
      const [balance, usage] = await Promise.all([deps.ledger.accountBalance(caller.customerId), deps.ledger.freeQuotaUsage(caller.customerId, models)]);
      const at = now();
      const freeQuota = models.map(({ modelId, quota }, i) => ({
        model: modelId,
        unit: quota.unit,
        period: quota.period,
        amount: quota.amount,
        used: usage[i]!.used + usage[i]!.held,
        periodEnd: periodEnd(quota.period, at),
      }));
      return { balance, freeQuota };
    },

    async key(caller: Caller): Promise<{ key: ApiKey; spend: KeySpend }> {
      const [key, spend] = await Promise.all([callingKey(caller), deps.ledger.keySpend(caller.keyId)]);
      return { key, spend };
    },

    async requests(caller: Caller, filter: RequestFilter): Promise<RequestLogPage | Failure> {
      const { after, ...rest } = filter;
      // The customer's rows only; a key filter naming another customer's key simply finds nothing.
      return requestLog({ ...rest, customerId: caller.customerId, ...(after !== undefined ? { before: after } : {}) });
    },

    /** Any customer's request log (operators), by the same rule. */
    requestLogOfAny: requestLog,

    /** UTC days `start` to `end` inclusive (YYYY-MM-DD); default: this month so far. */
    usage: (caller: Caller, range: UsageRange) => usageOf(caller.customerId, range),

    /** The same report for operators: one customer's, or every customer's (`customerId` undefined). */
    usageOf,

    /**
     * A key with a `total` spend limit is described by itself (its limit, capped by what the wallet
     * can still pay, against its charges); any other key by the customer's wallet (everything
     * charged plus what is available, against everything charged).
     */
    async legacyBilling(caller: Caller): Promise<LegacyBilling> {
      const [key, balance] = await Promise.all([callingKey(caller), deps.ledger.accountBalance(caller.customerId)]);
      const accessUntil = key.expiresAt ? Math.floor(key.expiresAt.getTime() / 1000) : 0;
      const available = balance.available > 0n ? balance.available : 0n;
      if (key.limits.spend?.period === 'total') {
        const used = (await deps.ledger.keySpend(caller.keyId)).total;
        const reachable = used + available;
        return { hardLimit: key.limits.spend.amount < reachable ? key.limits.spend.amount : reachable, used, accessUntil };
      }
      return { hardLimit: balance.debits + available, used: balance.debits, accessUntil };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
