// Who is calling: a presented key -> its customer, reach and limits, or why it is refused. Known
// keys are remembered `cacheMs` after a lookup, so a busy key costs no query per request. What
// changes through this process (revocation, rotation, suspension, a new expiry or limits) is
// forgotten here at once; a change made through another process (a replica, `npm run admin`)
// reaches this one within `cacheMs`. Expiry and a rotation's grace end are exact everywhere: the
// remembered entry carries them and is checked on every use.
import type { Knex } from 'knex';
import { hashApiKey, looksLikeApiKey } from './api-key.ts';
import { CustomerError } from './errors.ts';
import { callerOf, KEY_COLUMNS, type ApiKeyRow, type Caller, type CustomerStatus } from './model.ts';

export type Authenticated = Caller | CustomerError.ApiKeyExpired | CustomerError.CustomerSuspended | null;

interface Known {
  caller: Caller;
  expiresAt: number | null;
  suspended: boolean;
  until: number;
}

/** At most this many keys are remembered; the oldest go first. */
const KEY_CACHE_MAX = 10_000;

export function createKeyAuthenticator(deps: { db: Knex; apiKeyPrefix: string; now: () => Date; cacheMs: number }) {
  // By hash, only keys that exist: guessing cannot fill the cache, and unknown or revoked keys
  // always reach the database.
  const known = new Map<string, Known>();

  function verdict(entry: Known, now: number): Authenticated {
    if (entry.suspended) return CustomerError.CustomerSuspended;
    if (entry.expiresAt !== null && entry.expiresAt <= now) return CustomerError.ApiKeyExpired;
    return entry.caller;
  }

  async function lookup(hash: string, now: Date): Promise<Known | undefined> {
    const row: (ApiKeyRow & { key_hash: string; customer_status: CustomerStatus }) | undefined = await deps
      .db('api_keys as k')
      .join('customers as c', 'c.id', 'k.customer_id')
      .whereNull('k.revoked_at')
      .where((q) => q.where('k.key_hash', hash).orWhere((old) => old.where('k.previous_key_hash', hash).where('k.previous_valid_until', '>', now)))
      .first(...KEY_COLUMNS.map((c) => `k.${c}`), 'k.key_hash', 'c.status as customer_status');
    if (!row) return undefined;
    // A rotated-out secret is remembered no longer than its grace period lasts.
    const graceEnd = row.key_hash === hash ? Infinity : new Date(row.previous_valid_until!).getTime();
    return {
      caller: callerOf(row),
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      suspended: row.customer_status === 'suspended',
      until: Math.min(now.getTime() + deps.cacheMs, graceEnd),
    };
  }

  return {
    async authenticate(presented: string): Promise<Authenticated> {
      if (!looksLikeApiKey(presented, deps.apiKeyPrefix)) return null;
      const hash = hashApiKey(presented);
      const now = deps.now();
      const cached = known.get(hash);
      if (cached && cached.until > now.getTime()) return verdict(cached, now.getTime());
      const entry = await lookup(hash, now);
      known.delete(hash); // re-inserted at the end: the Map's order is the eviction order
      if (!entry) return null;
      if (deps.cacheMs > 0) {
        known.set(hash, entry);
        if (known.size > KEY_CACHE_MAX) known.delete(known.keys().next().value!);
      }
      return verdict(entry, now.getTime());
    },
    /** A key changed through this process: its next use reads the database. */
    forgetKey(keyId: string): void {
      for (const [hash, entry] of known) if (entry.caller.keyId === keyId) known.delete(hash);
    },
    forgetCustomer(customerId: string): void {
      for (const [hash, entry] of known) if (entry.caller.customerId === customerId) known.delete(hash);
    },
  };
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;
