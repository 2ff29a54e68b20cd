import type { ApiKey, Customer } from '../../customers/service.ts';
import type { KeyLimits } from '../../customers/limits.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminComponents, WireApiKey, WireCustomer } from '../../types.ts';

export const customerToWire = (customer: Customer): WireCustomer => ({
  id: customer.id,
  object: 'customer',
  name: customer.name,
  external_reference: customer.externalReference,
  status: customer.status,
  created_at: customer.createdAt.toISOString(),
});

export const limitsToWire = (limits: KeyLimits): AdminComponents['schemas']['KeyLimits'] => ({
  requests_per_minute: limits.requestsPerMinute,
  max_concurrent: limits.maxConcurrent,
  spend_limit: limits.spend ? { amount: formatMicros(limits.spend.amount), period: limits.spend.period } : null,
});

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function keyStatus(key: ApiKey, now = new Date()): WireApiKey['status'] {
  if (key.revokedAt) return 'revoked';
  return key.expiresAt && key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

export const apiKeyToWire = (key: ApiKey): WireApiKey => ({
  id: key.id,
  object: 'api_key',
  customer_id: key.customerId,
  name: key.name,
  redacted_key: key.redacted,
  allowed_models: key.allowedModels,
  status: keyStatus(key),
  expires_at: iso(key.expiresAt),
  limits: limitsToWire(key.limits),
  // Shown only while it still works.
  previous_key_valid_until:
    key.previousValidUntil && key.previousValidUntil.getTime() > Date.now() && !key.revokedAt ? key.previousValidUntil.toISOString() : null,
  created_at: key.createdAt.toISOString(),
  revoked_at: iso(key.revokedAt),
});
