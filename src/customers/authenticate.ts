// Who is calling: a presented key -> its customer, reach and limits, or why it is refused. Known
// keys are remembered `cacheMs` after a lookup, so a busy key costs no query per request; a key
// used past half that period is looked up again in the background, so a busy key never waits for
// the database (measured: the lookup on the request path was a 3-5 ms step every 5 s). What
// changes through this process (revocation, rotation, suspension, a new expiry or limits) is
// forgotten here at once; a change made through another process (a replica) is forgotten when
// PostgreSQL's notification of it arrives (key-changes.ts), and within `cacheMs` at worst, if
// the notification is lost. Expiry and a rotation's grace end are exact everywhere: the
// remembered entry carries them and is checked on every use. `keepWarm` re-reads, in one query,
// the keys used within `warmMs`, so a client that pauses between requests (a person at a chat, a
// batch between rounds) does not meet the lookup on its next one.
import type { Knex } from 'knex';
import type { PriceOverride } from '../pricing/plans.ts';
import { hashApiKey, looksLikeApiKey } from './api-key.ts';
import { CustomerError } from './errors.ts';
import { callerOf, KEY_COLUMNS, type ApiKeyRow, type Caller, type CustomerStatus } from './model.ts';

/** A key that exists but may not be used now; who it belongs to, for the operators' logs. */
export interface Refused {
  refused: CustomerError.ApiKeyExpired | CustomerError.CustomerSuspended;
  customerId: string;
  keyId: string;
}

export type Authenticated = Caller | Refused | null;

export const isRefused = (result: Authenticated): result is Refused => result !== null && 'refused' in result;

interface Known {
  caller: Caller;
  expiresAt: number | null;
  suspended: boolean;
  /** Used after this, the entry is refreshed in the background; after `until` it is gone. */
  refreshAt: number;
  until: number;
  refreshing?: boolean;
  /** When a request last presented the key. */
  usedAt: number;
}

/** At most this many keys are remembered; the oldest go first. */
const KEY_CACHE_MAX = 10_000;

export function createKeyAuthenticator(deps: { db: Knex; apiKeyPrefix: string; now: () => Date; cacheMs: number; warmMs?: number }) {
  // By hash, only keys that exist: guessing cannot fill the cache, and unknown or revoked keys
  // always reach the database.
  const known = new Map<string, Known>();
  /** Bumped by every change made here: a lookup that began before a change does not store what it read. */
  let generation = 0;

  function verdict(entry: Known, now: number): Authenticated {
    const who = { customerId: entry.caller.customerId, keyId: entry.caller.keyId };
    if (entry.suspended) return { refused: CustomerError.CustomerSuspended, ...who };
    if (entry.expiresAt !== null && entry.expiresAt <= now) return { refused: CustomerError.ApiKeyExpired, ...who };
    return entry.caller;
  }

  type Row = ApiKeyRow & {
    key_hash: string;
    previous_key_hash: string | null;
    customer_status: CustomerStatus;
    customer_plan_id: string | null;
    customer_price_overrides: PriceOverride[] | null;
  };

  /** The live keys presented as any of `hashes` (a current secret, or a rotated-out one in its grace). */
  function liveKeys(hashes: string[], now: Date): Promise<Row[]> {
    return deps
      .db('api_keys as k')
      .join('customers as c', 'c.id', 'k.customer_id')
      .whereNull('k.revoked_at')
      .where((q) => q.whereIn('k.key_hash', hashes).orWhere((old) => old.whereIn('k.previous_key_hash', hashes).where('k.previous_valid_until', '>', now)))
      .select(
        ...KEY_COLUMNS.map((c) => `k.${c}`),
        'k.key_hash',
        'k.previous_key_hash',
        'c.status as customer_status',
        'c.plan_id as customer_plan_id',
        'c.price_overrides as customer_price_overrides',
      );
  }

  function entryOf(row: Row, hash: string, now: Date, usedAt: number): Known {
    // A rotated-out secret is remembered no longer than its grace period lasts.
    const graceEnd = row.key_hash === hash ? Infinity : new Date(row.previous_valid_until!).getTime();
    const until = Math.min(now.getTime() + deps.cacheMs, graceEnd);
    return {
      // The customer's pricing rides with the key: a change to it is a change of the customer row,
      // forgotten here as suspensions are (on every replica through the notification).
      caller: {
        ...callerOf(row),
        ...(row.customer_plan_id ? { planId: row.customer_plan_id } : {}),
        ...(row.customer_price_overrides?.length ? { priceOverrides: row.customer_price_overrides } : {}),
      },
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      suspended: row.customer_status === 'suspended',
      refreshAt: Math.min(now.getTime() + deps.cacheMs / 2, until),
      until,
      usedAt,
    };
  }

  async function lookup(hash: string, now: Date): Promise<Known | undefined> {
    const [row] = await liveKeys([hash], now);
    return row && entryOf(row, hash, now, now.getTime());
  }

  function remember(hash: string, entry: Known | undefined): void {
    known.delete(hash); // re-inserted at the end: the Map's order is the eviction order
    if (entry && deps.cacheMs > 0) {
      known.set(hash, entry);
      if (known.size > KEY_CACHE_MAX) known.delete(known.keys().next().value!);
    }
  }

  /** Looks `hash` up and remembers the answer, unless something changed here meanwhile. */
  async function lookupAndRemember(hash: string, now: Date): Promise<Known | undefined> {
    const began = generation;
    const entry = await lookup(hash, now);
    if (began !== generation) return entry; // answer this request, remember nothing
    remember(hash, entry);
    return entry;
  }

  return {
    async authenticate(presented: string): Promise<Authenticated> {
      if (!looksLikeApiKey(presented, deps.apiKeyPrefix)) return null;
      const hash = hashApiKey(presented);
      const now = deps.now();
      const cached = known.get(hash);
      if (cached && cached.until > now.getTime()) {
        cached.usedAt = now.getTime();
        if (cached.refreshAt <= now.getTime() && !cached.refreshing) {
          cached.refreshing = true;
          // A failed refresh (the database away) leaves the entry to expire at `until`.
          void lookupAndRemember(hash, now)
            .catch(() => undefined)
            .finally(() => (cached.refreshing = false));
        }
        return verdict(cached, now.getTime());
      }
      const entry = await lookupAndRemember(hash, now);
      return entry ? verdict(entry, now.getTime()) : null;
    },
    /**
     * Re-reads, in one query, every remembered key used within `warmMs` (one query however many),
     * so none expires while in use; keys no longer live are forgotten. Run every `cacheMs / 2`; a
     * failure leaves the entries to expire as they would have.
     */
    async keepWarm(): Promise<void> {
      const now = deps.now();
      const t = now.getTime();
      const warm = [...known].filter(([, e]) => !e.refreshing && e.usedAt > t - (deps.warmMs ?? 0));
      if (warm.length === 0) return;
      const began = generation;
      for (const [, e] of warm) e.refreshing = true;
      let rows: Row[];
      try {
        rows = await liveKeys(
          warm.map(([hash]) => hash),
          now,
        );
      } finally {
        for (const [, e] of warm) e.refreshing = false;
      }
      if (began !== generation) return;
      const byHash = new Map<string, Row>();
      for (const row of rows) {
        if (row.previous_key_hash) byHash.set(row.previous_key_hash, row);
      }
      for (const row of rows) byHash.set(row.key_hash, row); // a current secret wins
      for (const [hash, old] of warm) {
        const row = byHash.get(hash);
        if (known.get(hash) !== old) continue; // replaced or forgotten meanwhile
        remember(hash, row && entryOf(row, hash, now, old.usedAt));
      }
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
    /** Changes may have been missed (a lost notification): every key's next use reads the database. */
    forgetAll(): void {
      generation++;
      known.clear();
    },
  };
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;
