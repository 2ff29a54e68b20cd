import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';
import { keyChangeOf } from './admin_api_keys_update.ts';

export async function admin_api_keys_create(ctx: AdminContext<'admin_api_keys_create'>): Promise<Ok<AdminOperations, 'admin_api_keys_create'> | Failure> {
  const result = await ctx.services.customers.createApiKey(ctx.params.customer_id, keyChangeOf(ctx.body ?? {}));
  if (result === CustomerError.CustomerNotFound) return failureOf(result);
  if (result === CustomerError.UnknownModel) return failureOf(result, 'allowed_models');
  if (result === CustomerError.InvalidLimit) return failureOf(result, 'limits.spend_limit.amount');
  // The only response that ever carries the secret (besides a rotation's).
  return { status: 201, body: { ...apiKeyToWire(result.apiKey), key: result.secret } };
}
