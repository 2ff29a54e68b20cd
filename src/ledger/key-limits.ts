// Per-key limits, enforced where they are exact on any number of replicas: in the transaction that
// makes the request's reservation, under a lock on the key's row. Whoever holds the lock sees
// every earlier reservation of the key committed, so parallel requests queue on the key and none
// can overshoot a limit. Everything is counted from the ledger's own rows:
//   concurrency: the key's pending reservations (a video task counts until it is settled);
//   rate: the key's reservations created in the last 60 s (a sliding window; requests refused
//         before a reservation, for a bad body or a limit, do not count);
//   spend: what the key was charged in its period (key_spend_daily: posted and debt) plus its
//          pending reservations. A limit refuses the next request; it never caps a delivered one.
// Keys with a limit never draw from a credit grant (src/holds/holds.ts), so all their holds are
// reservations here. Lock order: the key, then the free-quota row, then the wallet (reserve.ts).
import type { Knex } from 'knex';
import { formatMicros } from '../shared/money.ts';
import { LedgerError } from './errors.ts';
import { periodStartSql, type SpendPeriod } from './key-spend.ts';

export const RATE_WINDOW_SECONDS = 60;

export interface RateState {
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When the window is empty again (every request in it is older than 60 s). */
  resetAt: Date;
  resetSeconds: number;
}

export type KeyLimitName = 'requests_per_minute' | 'max_concurrent' | 'spend_limit';

/** Why a key may not make this request now, with what the client needs to wait well. */
export class KeyLimitRefusal {
  constructor(
    readonly code: LedgerError.KeyRateLimited | LedgerError.KeySpendLimitExceeded,
    readonly limit: KeyLimitName,
    readonly message: string,
    readonly retryAfterSeconds: number | null,
    readonly rate: RateState | null,
  ) {}
}

/** Thrown inside the reservation transaction: it rolls back, and reserve() answers the refusal. */
export class KeyLimitAbort extends Error {
  constructor(readonly refusal: KeyLimitRefusal) {
    super(refusal.code);
  }
}

export interface KeyLimitRow {
  requests_per_minute: number | null;
  max_concurrent: number | null;
  spend_limit: bigint | null;
  spend_period: SpendPeriod | null;
}

/** The key's limits, read under its row lock (taken first: see the lock order above). */
export const lockKey = (trx: Knex.Transaction, keyId: string): Promise<KeyLimitRow | undefined> =>
  trx('api_keys').where({ id: keyId }).forUpdate().first('requests_per_minute', 'max_concurrent', 'spend_limit', 'spend_period');

/** Posted spend of the key in its period plus what its pending reservations hold. */
async function spent(trx: Knex.Transaction, keyId: string, period: SpendPeriod): Promise<bigint> {
  const { rows } = await trx.raw<{ rows: Array<{ spent: bigint | string }> }>(
    `select coalesce((select sum(amount) from key_spend_daily where key_id = ? and day >= ${periodStartSql(period)}), 0)::bigint
          + coalesce((select sum(amount) from reservations where key_id = ? and status = 'pending'), 0)::bigint as spent`,
    [keyId, keyId],
  );
  return BigInt(rows[0]!.spent);
}

interface Activity {
  recent: number;
  open: number;
  /** Seconds until the oldest and the newest reservation of the window leave it. */
  oldestLeaves: number;
  newestLeaves: number;
  now: Date;
}

async function activity(trx: Knex.Transaction, keyId: string): Promise<Activity> {
  const { rows } = await trx.raw<{ rows: Array<{ recent: number; open: number; oldest_leaves: number | null; newest_leaves: number | null; now: Date }> }>(
    `with recent as (select created_at from reservations where key_id = ? and created_at > now() - interval '${RATE_WINDOW_SECONDS} seconds')
     select (select count(*) from recent)::int as recent,
            (select count(*) from reservations where key_id = ? and status = 'pending')::int as open,
            extract(epoch from (select min(created_at) from recent) + interval '${RATE_WINDOW_SECONDS} seconds' - now())::float8 as oldest_leaves,
            extract(epoch from (select max(created_at) from recent) + interval '${RATE_WINDOW_SECONDS} seconds' - now())::float8 as newest_leaves,
            now() as now`,
    [keyId, keyId],
  );
  const row = rows[0]!;
  return {
    recent: Number(row.recent),
    open: Number(row.open),
    oldestLeaves: Number(row.oldest_leaves ?? 0),
    newestLeaves: Number(row.newest_leaves ?? 0),
    now: new Date(row.now),
  };
}

const rateState = (limit: number, remaining: number, resetSeconds: number, now: Date): RateState => {
  const seconds = Math.min(RATE_WINDOW_SECONDS, Math.max(0, Math.ceil(resetSeconds)));
  return { limit, remaining: Math.max(0, remaining), resetAt: new Date(now.getTime() + seconds * 1000), resetSeconds: seconds };
};

/**
 * Checks the limits of a key locked by lockKey for a reservation of `amount`, inside the
 * reservation's transaction (which must go on to insert it). Throws KeyLimitAbort when a limit
 * refuses; answers the rate state after this request when the key has a rate limit.
 */
export async function enforceKeyLimits(trx: Knex.Transaction, keyId: string, key: KeyLimitRow, amount: bigint): Promise<RateState | null> {
  let rate: RateState | null = null;
  /** The rate state if this request is refused after all (it will not count). */
  let unchanged: RateState | null = null;
  if (key.requests_per_minute !== null || key.max_concurrent !== null) {
    const seen = await activity(trx, keyId);
    const rpm = key.requests_per_minute;
    if (rpm !== null && seen.recent >= rpm) {
      // now() is this transaction's start: a reservation that committed while this one waited for
      // the key's lock can look younger than that, so the wait is capped at the window.
      const retry = Math.min(RATE_WINDOW_SECONDS, Math.max(1, Math.ceil(seen.oldestLeaves)));
      const refused = rateState(rpm, 0, seen.newestLeaves, seen.now);
      throw new KeyLimitAbort(
        new KeyLimitRefusal(
          LedgerError.KeyRateLimited,
          'requests_per_minute',
          `This API key's limit of ${rpm} requests per minute is reached; retry in ${retry} s.`,
          retry,
          refused,
        ),
      );
    }
    if (rpm !== null) {
      rate = rateState(rpm, rpm - seen.recent - 1, RATE_WINDOW_SECONDS, seen.now);
      unchanged = rateState(rpm, rpm - seen.recent, seen.recent ? seen.newestLeaves : 0, seen.now);
    }
    if (key.max_concurrent !== null && seen.open >= key.max_concurrent) {
      const message = `This API key's limit of ${key.max_concurrent} concurrent requests is reached; retry when one of them has finished.`;
      throw new KeyLimitAbort(new KeyLimitRefusal(LedgerError.KeyRateLimited, 'max_concurrent', message, 1, unchanged));
    }
  }
  if (key.spend_limit !== null && key.spend_period !== null) {
    const used = await spent(trx, keyId, key.spend_period);
    if (used + amount > key.spend_limit) {
      const left = key.spend_limit > used ? key.spend_limit - used : 0n;
      const per = key.spend_period === 'total' ? '' : ` per ${key.spend_period} (UTC)`;
      const message = `This request may cost up to ${formatMicros(amount)}, more than the ${formatMicros(left)} left of this API key's spend limit of ${formatMicros(key.spend_limit)}${per}.`;
      throw new KeyLimitAbort(new KeyLimitRefusal(LedgerError.KeySpendLimitExceeded, 'spend_limit', message, null, unchanged));
    }
  }
  return rate;
}
