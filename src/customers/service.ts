import type { Knex } from 'knex';
import { generateApiKey, hashApiKey, looksLikeApiKey, redactApiKey } from './api-key.ts';
import { CustomerError } from './errors.ts';
import { newApiKeyId, newCustomerId } from '../shared/ids.ts';

export interface Customer {
  id: string;
  name: string;
  externalReference: string | null;
  createdAt: Date;
}

export interface ApiKey {
  id: string;
  customerId: string;
  name: string;
  redacted: string;
  /** Public model ids the key may reach; null means every model. */
  allowedModels: string[] | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The outcome of authenticating a presented key: who is calling and what the key may reach. */
export interface Caller {
  customerId: string;
  keyId: string;
  allowedModels: string[] | null;
}

export interface CustomerService {
  createCustomer(input: { name: string; externalReference?: string | null }): Promise<Customer | CustomerError.ExternalReferenceTaken>;
  getCustomer(id: string): Promise<Customer | CustomerError.CustomerNotFound>;
  createApiKey(
    customerId: string,
    input: { name?: string | null; allowedModels?: string[] | null },
  ): Promise<{ apiKey: ApiKey; secret: string } | CustomerError.CustomerNotFound | CustomerError.UnknownModel>;
  listApiKeys(customerId: string): Promise<ApiKey[] | CustomerError.CustomerNotFound>;
  revokeApiKey(keyId: string): Promise<ApiKey | CustomerError.ApiKeyNotFound>;
  /** Null for anything that is not a live key: unknown, revoked or malformed. */
  authenticate(presented: string): Promise<Caller | null>;
  countCustomers(): Promise<number>;
}

export interface CustomerServiceDeps {
  db: Knex;
  apiKeyPrefix: string;
  /** Whether a public model id exists, for validating allow-lists. */
  modelExists(modelId: string): boolean;
  now?: () => Date;
  /**
   * How long a live key is remembered after a lookup (0: every request asks the database). A key
   * revoked through this process stops at once; through another process (a replica, the admin
   * CLI) within this time.
   */
  keyCacheMs?: number;
}

/** At most this many keys are remembered; the oldest go first. */
const KEY_CACHE_MAX = 10_000;

interface CustomerRow {
  id: string;
  name: string;
  external_reference: string | null;
  created_at: Date;
}

interface ApiKeyRow {
  id: string;
  customer_id: string;
  name: string;
  redacted: string;
  allowed_models: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
}

const toCustomer = (row: CustomerRow): Customer => ({
  id: row.id,
  name: row.name,
  externalReference: row.external_reference,
  createdAt: new Date(row.created_at),
});

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  customerId: row.customer_id,
  name: row.name,
  redacted: row.redacted,
  allowedModels: row.allowed_models,
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
});

const UNIQUE_VIOLATION = '23505';

export function createCustomerService(deps: CustomerServiceDeps): CustomerService {
  const { db, apiKeyPrefix } = deps;
  const now = deps.now ?? (() => new Date());
  const keyCacheMs = deps.keyCacheMs ?? 0;
  // Live keys only, by hash: an unknown or revoked key always reaches the database, so guessing
  // cannot fill the cache and a revoked key is never kept alive by it.
  const keyCache = new Map<string, { caller: Caller; until: number }>();

  async function findCustomer(id: string): Promise<CustomerRow | undefined> {
    return db<CustomerRow>('customers').where({ id }).first();
  }

  return {
    async createCustomer({ name, externalReference }) {
      try {
        const [row] = await db<CustomerRow>('customers')
          .insert({ id: newCustomerId(), name, external_reference: externalReference ?? null })
          .returning('*');
        return toCustomer(row as CustomerRow);
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return CustomerError.ExternalReferenceTaken;
        throw error;
      }
    },

    async getCustomer(id) {
      const row = await findCustomer(id);
      return row ? toCustomer(row) : CustomerError.CustomerNotFound;
    },

    async createApiKey(customerId, { name, allowedModels }) {
      if (!(await findCustomer(customerId))) return CustomerError.CustomerNotFound;
      if (allowedModels && !allowedModels.every((id) => deps.modelExists(id))) return CustomerError.UnknownModel;
      const secret = generateApiKey(apiKeyPrefix);
      const [row] = await db('api_keys')
        .insert({
          id: newApiKeyId(),
          customer_id: customerId,
          name: name ?? 'default',
          key_hash: hashApiKey(secret),
          redacted: redactApiKey(secret, apiKeyPrefix),
          allowed_models: allowedModels ? JSON.stringify([...new Set(allowedModels)]) : null,
        })
        .returning(['id', 'customer_id', 'name', 'redacted', 'allowed_models', 'created_at', 'revoked_at']);
      return { apiKey: toApiKey(row as ApiKeyRow), secret };
    },

    async listApiKeys(customerId) {
      if (!(await findCustomer(customerId))) return CustomerError.CustomerNotFound;
      const rows = await db<ApiKeyRow>('api_keys')
        .where({ customer_id: customerId })
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .select('id', 'customer_id', 'name', 'redacted', 'allowed_models', 'created_at', 'revoked_at');
      return rows.map(toApiKey);
    },

    async revokeApiKey(keyId) {
      // coalesce keeps the first revocation time when an operator revokes twice.
      const [row] = await db<ApiKeyRow>('api_keys')
        .where({ id: keyId })
        .update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [now()]) as unknown as Date })
        .returning(['id', 'customer_id', 'name', 'redacted', 'allowed_models', 'created_at', 'revoked_at']);
      for (const [hash, entry] of keyCache) if (entry.caller.keyId === keyId) keyCache.delete(hash);
      return row ? toApiKey(row as ApiKeyRow) : CustomerError.ApiKeyNotFound;
    },

    async authenticate(presented) {
      if (!looksLikeApiKey(presented, apiKeyPrefix)) return null;
      const hash = hashApiKey(presented);
      const cached = keyCache.get(hash);
      if (cached && cached.until > now().getTime()) return cached.caller;
      const row: Pick<ApiKeyRow, 'id' | 'customer_id' | 'allowed_models'> | undefined = await db('api_keys')
        .where('key_hash', hash)
        .whereNull('revoked_at')
        .first('id', 'customer_id', 'allowed_models');
      if (!row) {
        keyCache.delete(hash);
        return null;
      }
      const caller = { customerId: row.customer_id, keyId: row.id, allowedModels: row.allowed_models };
      if (keyCacheMs > 0) {
        keyCache.delete(hash); // re-inserted at the end: the Map's order is the eviction order
        keyCache.set(hash, { caller, until: now().getTime() + keyCacheMs });
        if (keyCache.size > KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
      }
      return caller;
    },

    async countCustomers() {
      const [row] = await db('customers').count<{ count: string | number | bigint }[]>('* as count');
      return Number(row?.count ?? 0);
    },
  };
}
