import type { ApiKey, Customer } from '../../customers/service.ts';
import type { WireApiKey, WireCustomer } from '../../types.ts';

export const customerToWire = (customer: Customer): WireCustomer => ({
  id: customer.id,
  object: 'customer',
  name: customer.name,
  external_reference: customer.externalReference,
  created_at: customer.createdAt.toISOString(),
});

export const apiKeyToWire = (key: ApiKey): WireApiKey => ({
  id: key.id,
  object: 'api_key',
  customer_id: key.customerId,
  name: key.name,
  redacted_key: key.redacted,
  allowed_models: key.allowedModels,
  status: key.revokedAt ? 'revoked' : 'active',
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt ? key.revokedAt.toISOString() : null,
});
