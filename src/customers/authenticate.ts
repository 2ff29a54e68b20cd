// Who is calling: a presented key -> its customer, reach and limits, or why it is refused. Known
// keys are remembered `cacheMs` after a lookup, so a busy key costs no query per request; a key
// used past half that period is looked up again in the background, so a busy key never waits for
// the database (measured: the lookup on the request path was a 3-5 ms step every 5 s). What
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
  /** Used after this, the entry is refreshed in the background; after `until` it is gone. */
  refreshAt: number;
  until: number;
  refreshing?: boolean;
}

/** At most this many keys are remembered; the oldest go first. */
const KEY_CACHE_MAX = 10_000;

export function createKeyAuthenticator(deps: { db: Knex; apiKeyPrefix: string; now: () => Date; cacheMs: number }) {
  // By hash, only keys that exist: guessing cannot fill the cache, and unknown or revoked keys
  // always reach the database.
  const known = new Map<string, Known>();
  /** Bumped by every change made here: a lookup that began before a change does not store what it read. */
  let generation = 0;

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
    const until = Math.min(now.getTime() + deps.cacheMs, graceEnd);
    return {
      caller: callerOf(row),
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      suspended: row.customer_status === 'suspended',
      refreshAt: Math.min(now.getTime() + deps.cacheMs / 2, until),
      until,
    };
  }

  /** Looks `hash` up and remembers the answer, unless something changed here meanwhile. */
  async function lookupAndRemember(hash: string, now: Date): Promise<Known | undefined> {
    const began = generation;
    const entry = await lookup(hash, now);
    if (began !== generation) return entry; // answer this request, remember nothing
    known.delete(hash); // re-inserted at the end: the Map's order is the eviction order
    if (entry && deps.cacheMs > 0) {
      known.set(hash, entry);
      if (known.size > KEY_CACHE_MAX) known.delete(known.keys().next().value!);
    }
    return entry;
  }

  return {
    async authenticate(presented: string): Promise<Authenticated> {
      if (!looksLikeApiKey(presented, deps.apiKeyPrefix)) return null;
      const hash = hashApiKey(presented);
      const now = deps.now();
      const cached = known.get(hash);
      if (cached && cached.until > now.getTime()) {
        if (cached.refreshAt <= now.getTime() && !cached.refreshing) {
          cached.refreshing = true;
          // A failed refresh (the database away) leaves the entry to expire at `until`.
          void lookupAndRemember(hash, now).catch(() => (cached.refreshing = false));
        }
        return verdict(cached, now.getTime());
      }
      const entry = await lookupAndRemember(hash, now);
      return entry ? verdict(entry, now.getTime()) : null;
    },
    /** A key changed through this process: its next use reads the database. */
    forgetKey(keyId: string): void {
      generation++;
      for (const [hash, entry] of known) if (entry.caller.keyId === keyId) known.delete(hash);
    },
    forgetCustomer(customerId: string): void {
      generation++;
      for (const [hash, entry] of known) if (entry.caller.customerId === customerId) known.delete(hash);
    },
  };
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;
