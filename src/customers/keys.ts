// API keys: created with a secret shown once, changed (name, reach, expiry, limits), rotated
// (a new secret, the old one valid for a grace period at most) and revoked. Every change tells
// the authenticator, so it takes effect in this process at once (see authenticate.ts).
import type { Knex } from 'knex';
import { newApiKeyId } from '../shared/ids.ts';
import { generateApiKey, hashApiKey, redactApiKey } from './api-key.ts';
import { CustomerError } from './errors.ts';
import { limitColumnsOf, type KeyLimitsPatch } from './limits.ts';
import { KEY_COLUMNS, toApiKey, type ApiKey, type ApiKeyRow } from './model.ts';

export interface KeyChange {
  name?: string;
  allowedModels?: string[] | null;
  /** null: never expires. */
  expiresAt?: Date | null;
  /** null removes every limit; within it, an absent field is unchanged and null removes that limit. */
  limits?: KeyLimitsPatch | null;
}

type Invalid = CustomerError.UnknownModel | CustomerError.InvalidLimit;

export interface KeyDeps {
  db: Knex;
  apiKeyPrefix: string;
  modelExists(modelId: string): boolean;
  now: () => Date;
  /** The key changed: forget what was remembered about it. */
  changed(keyId: string): void;
}

export function createKeys(deps: KeyDeps) {
  const { db } = deps;

  /** The columns a change sets, or why it is refused. */
  function columnsOf(change: KeyChange): Record<string, unknown> | Invalid {
    const columns: Record<string, unknown> = {};
    if (change.name !== undefined) columns.name = change.name;
    if (change.allowedModels !== undefined) {
      if (change.allowedModels && !change.allowedModels.every((id) => deps.modelExists(id))) return CustomerError.UnknownModel;
      columns.allowed_models = change.allowedModels ? JSON.stringify([...new Set(change.allowedModels)]) : null;
    }
    if (change.expiresAt !== undefined) columns.expires_at = change.expiresAt;
    if (change.limits !== undefined) {
      const limits = limitColumnsOf(change.limits);
      if (limits === 'invalid') return CustomerError.InvalidLimit;
      Object.assign(columns, limits);
    }
    return columns;
  }

  async function find(keyId: string): Promise<ApiKeyRow | undefined> {
    return db('api_keys')
      .where({ id: keyId })
      .first(...KEY_COLUMNS);
  }

  return {
    async create(customerId: string, change: KeyChange): Promise<{ apiKey: ApiKey; secret: string } | CustomerError.CustomerNotFound | Invalid> {
      if (!(await db('customers').where({ id: customerId }).first('id'))) return CustomerError.CustomerNotFound;
      const columns = columnsOf(change);
      if (typeof columns === 'string') return columns;
      const secret = generateApiKey(deps.apiKeyPrefix);
      const [row] = await db('api_keys')
        .insert({
          name: 'default',
          ...columns,
          id: newApiKeyId(),
          customer_id: customerId,
          key_hash: hashApiKey(secret),
          redacted: redactApiKey(secret, deps.apiKeyPrefix),
        })
        .returning([...KEY_COLUMNS]);
      return { apiKey: toApiKey(row as ApiKeyRow), secret };
    },

    async list(customerId: string): Promise<ApiKey[]> {
      const rows: ApiKeyRow[] = await db('api_keys')
        .where({ customer_id: customerId })
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .select(...KEY_COLUMNS);
      return rows.map(toApiKey);
    },

    async get(keyId: string): Promise<ApiKey | CustomerError.ApiKeyNotFound> {
      const row = await find(keyId);
      return row ? toApiKey(row) : CustomerError.ApiKeyNotFound;
    },

    async update(keyId: string, change: KeyChange): Promise<ApiKey | CustomerError.ApiKeyNotFound | CustomerError.ApiKeyRevoked | Invalid> {
      const columns = columnsOf(change);
      if (typeof columns === 'string') return columns;
      const [row] = await db('api_keys')
        .where({ id: keyId })
        .whereNull('revoked_at')
        .update({ ...columns, updated_at: deps.now() })
        .returning([...KEY_COLUMNS]);
      deps.changed(keyId);
      if (row) return toApiKey(row as ApiKeyRow);
      return (await find(keyId)) ? CustomerError.ApiKeyRevoked : CustomerError.ApiKeyNotFound;
    },

    /**
     * A new secret for the key; the old one stops now, or after `graceSeconds` (a client rolling
     * out the new secret keeps working meanwhile). A second rotation ends the first one's grace.
     */
    async rotate(
      keyId: string,
      graceSeconds: number,
    ): Promise<{ apiKey: ApiKey; secret: string } | CustomerError.ApiKeyNotFound | CustomerError.ApiKeyRevoked> {
      const secret = generateApiKey(deps.apiKeyPrefix);
      const now = deps.now();
      const graceEnd = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
      const [row] = await db('api_keys')
        .where({ id: keyId })
        .whereNull('revoked_at')
        .update({
          previous_key_hash: graceEnd ? db.ref('key_hash') : null,
          previous_valid_until: graceEnd,
          key_hash: hashApiKey(secret),
          redacted: redactApiKey(secret, deps.apiKeyPrefix),
          updated_at: now,
        })
        .returning([...KEY_COLUMNS]);
      deps.changed(keyId);
      if (row) return { apiKey: toApiKey(row as ApiKeyRow), secret };
      return (await find(keyId)) ? CustomerError.ApiKeyRevoked : CustomerError.ApiKeyNotFound;
    },

    async revoke(keyId: string): Promise<ApiKey | CustomerError.ApiKeyNotFound> {
      // coalesce keeps the first revocation time when an operator revokes twice.
      const [row] = await db('api_keys')
        .where({ id: keyId })
        .update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [deps.now()]), previous_key_hash: null, previous_valid_until: null })
        .returning([...KEY_COLUMNS]);
      deps.changed(keyId);
      return row ? toApiKey(row as ApiKeyRow) : CustomerError.ApiKeyNotFound;
    },
  };
}

export type Keys = ReturnType<typeof createKeys>;
