// How many codes a key and a client address may try. The counts live in the database
// (`redeem_attempts`), so the limit holds across replicas: each attempt adds one to its key's and
// its address's row of the current fixed window in one upsert before the code is looked at, and
// an attempt past either limit is refused without looking. A redemption that succeeds (or replays)
// gives its attempt back in its own transaction, so only failures use the allowance, and a burst
// of concurrent attempts can never pass it (each counted before it is tried). Windows are aligned
// on the database's clock; rows of past windows are deleted by later attempts.
import { isIPv4, isIPv6 } from 'node:net';
import type { Knex } from 'knex';

export interface AttemptLimits {
  perKey: number;
  perAddress: number;
  windowSeconds: number;
}

export interface AttemptScopes {
  key: string;
  address: string;
}

/**
 * The scopes an attempt counts against. IPv6 clients are counted by their /64 (one subscriber's
 * allocation, which a client can move around in freely); an IPv4-mapped address is its IPv4.
 */
export function attemptScopes(keyId: string, clientAddress: string): AttemptScopes {
  return { key: `key:${keyId}`, address: `address:${addressBucket(clientAddress)}` };
}

function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export interface AttemptCount {
  /** False when either scope is past its limit: the attempt is refused without looking at the code. */
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

/** Counts one attempt against both scopes (and clears windows that have ended). */
export async function countAttempt(db: Knex, scopes: AttemptScopes, limits: AttemptLimits): Promise<AttemptCount> {
  const window = limits.windowSeconds;
  const { rows } = await db.raw<{ rows: Array<{ scope: string; failures: number; retry_after: number }> }>(
    `with ended as (delete from redeem_attempts where window_start < now() - make_interval(secs => ?)),
     current as (select to_timestamp(floor(extract(epoch from now()) / ?) * ?) as start)
     insert into redeem_attempts (scope, window_start, failures)
     select scope, current.start, 1 from current, unnest(array[?, ?]::text[]) as scope
     on conflict (scope, window_start) do update set failures = redeem_attempts.failures + 1
     returning scope, failures, ceil(extract(epoch from window_start) + ? - extract(epoch from now()))::int as retry_after`,
    [window, window, window, scopes.key, scopes.address, window],
  );
  const over = rows.some((row) => row.failures > (row.scope === scopes.key ? limits.perKey : limits.perAddress));
  return { allowed: !over, retryAfter: Math.max(1, rows[0]?.retry_after ?? window) };
}

/** Gives a successful attempt back (in the redemption's transaction). */
export async function giveBack(trx: Knex.Transaction, scopes: AttemptScopes, limits: AttemptLimits): Promise<void> {
  await trx.raw(
    `update redeem_attempts set failures = failures - 1
     where scope in (?, ?) and window_start = to_timestamp(floor(extract(epoch from now()) / ?) * ?) and failures > 0`,
    [scopes.key, scopes.address, limits.windowSeconds, limits.windowSeconds],
  );
}
