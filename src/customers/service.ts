// Customers and their API keys: the operators' side (create, list, suspend; keys in keys.ts) and
// authentication of presented keys (authenticate.ts).
import type { Knex } from 'knex';
import { newCustomerId } from '../shared/ids.ts';
import { createKeyAuthenticator, type Authenticated } from './authenticate.ts';
import { CustomerError } from './errors.ts';
import type { KeysChanged } from './key-changes.ts';
import { createKeys, type KeyChange, type Keys } from './keys.ts';
import { toCustomer, type ApiKey, type Customer, type CustomerRow, type CustomerStatus } from './model.ts';

export type { ApiKey, Caller, Customer, CustomerStatus } from './model.ts';
export type { Authenticated } from './authenticate.ts';
export type { KeyChange } from './keys.ts';

export interface CustomerPage {
  customers: Customer[];
  hasMore: boolean;
}

export interface CustomerService {
  createCustomer(input: { name: string; externalReference?: string | null }): Promise<Customer | CustomerError.ExternalReferenceTaken>;
  getCustomer(id: string): Promise<Customer | CustomerError.CustomerNotFound>;
  /** Newest first; `after` is the last id of the previous page; `q` matches names (case-insensitive). */
  listCustomers(page: { limit: number; after?: string; q?: string }): Promise<CustomerPage>;
  updateCustomer(id: string, change: { name?: string; status?: CustomerStatus }): Promise<Customer | CustomerError.CustomerNotFound>;
  createApiKey(customerId: string, change: KeyChange): ReturnType<Keys['create']>;
  listApiKeys(customerId: string): Promise<ApiKey[] | CustomerError.CustomerNotFound>;
  getApiKey(keyId: string): ReturnType<Keys['get']>;
  updateApiKey(keyId: string, change: KeyChange): ReturnType<Keys['update']>;
  rotateApiKey(keyId: string, graceSeconds: number): ReturnType<Keys['rotate']>;
  revokeApiKey(keyId: string): ReturnType<Keys['revoke']>;
  /** Null for anything that is not a key: unknown, revoked or malformed. */
  authenticate(presented: string): Promise<Authenticated>;
  /** Re-reads the keys in recent use before their entries expire (see authenticate.ts); run every `keyCacheMs / 2`. */
  keepKeysWarm(): Promise<void>;
  /** A key or customer changed through another process (key-changes.ts): its next use reads the database. */
  forgetChanged(change: KeysChanged): void;
  countCustomers(): Promise<number>;
}

export interface CustomerServiceDeps {
  db: Knex;
  apiKeyPrefix: string;
  /** Whether a public model id exists, for validating allow-lists. */
  modelExists(modelId: string): boolean;
  now?: () => Date;
  /**
   * How long a known key is remembered after a lookup (0: every request asks the database). A key
   * changed through this process (revoked, rotated, its customer suspended) takes effect at once;
   * through another process once `forgetChanged` hears of it, and within this time at worst.
   */
  keyCacheMs?: number;
  /** Keys presented within this time are kept remembered by `keepKeysWarm` (0: not kept). */
  keyWarmMs?: number;
}

const UNIQUE_VIOLATION = '23505';

/** `q` as a LIKE pattern matching itself anywhere: its own % and _ are literal. */
const containing = (q: string): string => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createCustomerService(deps: CustomerServiceDeps): CustomerService {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const auth = createKeyAuthenticator({ db, apiKeyPrefix: deps.apiKeyPrefix, now, cacheMs: deps.keyCacheMs ?? 0, warmMs: deps.keyWarmMs ?? 0 });
  const keys = createKeys({ db, apiKeyPrefix: deps.apiKeyPrefix, modelExists: deps.modelExists, now, changed: auth.forgetKey });

  const findCustomer = async (id: string): Promise<CustomerRow | undefined> => db<CustomerRow>('customers').where({ id }).first();

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

    async listCustomers({ limit, after, q }) {
      const rows: CustomerRow[] = await db('customers')
        .modify((query) => {
          if (q) query.whereRaw('name ilike ?', [containing(q)]);
          if (after) query.whereRaw('(created_at, id) < (select created_at, id from customers where id = ?)', [after]);
        })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit + 1);
      return { customers: rows.slice(0, limit).map(toCustomer), hasMore: rows.length > limit };
    },

    async updateCustomer(id, change) {
      const columns = { ...(change.name !== undefined ? { name: change.name } : {}), ...(change.status !== undefined ? { status: change.status } : {}) };
      const [row] = Object.keys(columns).length ? await db('customers').where({ id }).update(columns).returning('*') : [await findCustomer(id)];
      auth.forgetCustomer(id);
      return row ? toCustomer(row as CustomerRow) : CustomerError.CustomerNotFound;
    },

    createApiKey: (customerId, change) => keys.create(customerId, change),
    async listApiKeys(customerId) {
      if (!(await findCustomer(customerId))) return CustomerError.CustomerNotFound;
      return keys.list(customerId);
    },
    getApiKey: (keyId) => keys.get(keyId),
    updateApiKey: (keyId, change) => keys.update(keyId, change),
    rotateApiKey: (keyId, graceSeconds) => keys.rotate(keyId, graceSeconds),
    revokeApiKey: (keyId) => keys.revoke(keyId),
    authenticate: (presented) => auth.authenticate(presented),
    keepKeysWarm: () => auth.keepWarm(),
    forgetChanged(change) {
      if (change === 'anything') auth.forgetAll();
      else if ('keyId' in change) auth.forgetKey(change.keyId);
      else if ('customerId' in change) auth.forgetCustomer(change.customerId);
      // A plan's change is the plans' (src/domain/plans/book.ts): keys name the plan, not its prices.
    },

    async countCustomers() {
      const [row] = await db('customers').count<{ count: string | number | bigint }[]>('* as count');
      return Number(row?.count ?? 0);
    },
  };
}
