// Customers and API keys as the rest of the gateway sees them, and their rows.
import type { PriceOverride } from '../pricing/plans.ts';
import { hasLimits, limitsOfRow, type KeyLimits, type LimitColumns } from './limits.ts';

export type CustomerStatus = 'active' | 'suspended';

export interface Customer {
  id: string;
  name: string;
  externalReference: string | null;
  /** suspended: every key of the customer is refused (403); nothing else changes. */
  status: CustomerStatus;
  createdAt: Date;
}

export interface ApiKey {
  id: string;
  customerId: string;
  name: string;
  redacted: string;
  /** Public model ids the key may reach; null means every model. */
  allowedModels: string[] | null;
  limits: KeyLimits;
  expiresAt: Date | null;
  /** After a rotation with a grace period: until when the previous secret still works. */
  previousValidUntil: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The outcome of authenticating a presented key: who is calling and what the key may reach. */
export interface Caller {
  customerId: string;
  keyId: string;
  allowedModels: string[] | null;
  /** The key has a limit: its requests reserve on their own, under the key's lock (src/ledger/key-limits.ts). */
  limited: boolean;
  /** The customer's price plan (src/domain/plans); absent: list prices. */
  planId?: string;
  /** The customer's own per-model price overrides, before its plan's rules; absent: none. */
  priceOverrides?: PriceOverride[];
}

export interface CustomerRow {
  id: string;
  name: string;
  external_reference: string | null;
  status: CustomerStatus;
  created_at: Date;
}

export interface ApiKeyRow extends LimitColumns {
  id: string;
  customer_id: string;
  name: string;
  redacted: string;
  allowed_models: string[] | null;
  expires_at: Date | null;
  previous_valid_until: Date | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Every column of a key but its hashes. */
export const KEY_COLUMNS = [
  'id',
  'customer_id',
  'name',
  'redacted',
  'allowed_models',
  'expires_at',
  'requests_per_minute',
  'max_concurrent',
  'spend_limit',
  'spend_period',
  'previous_valid_until',
  'created_at',
  'revoked_at',
] as const;

const date = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

export const toCustomer = (row: CustomerRow): Customer => ({
  id: row.id,
  name: row.name,
  externalReference: row.external_reference,
  status: row.status,
  createdAt: new Date(row.created_at),
});

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  customerId: row.customer_id,
  name: row.name,
  redacted: row.redacted,
  allowedModels: row.allowed_models,
  limits: limitsOfRow(row),
  expiresAt: date(row.expires_at),
  previousValidUntil: date(row.previous_valid_until),
  createdAt: new Date(row.created_at),
  revokedAt: date(row.revoked_at),
});

export const callerOf = (row: ApiKeyRow): Caller => ({
  customerId: row.customer_id,
  keyId: row.id,
  allowedModels: row.allowed_models,
  limited: hasLimits(limitsOfRow(row)),
});
