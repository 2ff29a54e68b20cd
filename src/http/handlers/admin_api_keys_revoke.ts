import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_api_keys_revoke(ctx: AdminContext<'admin_api_keys_revoke'>): Promise<Ok<AdminOperations, 'admin_api_keys_revoke'> | Failure> {
  const result = await ctx.services.customers.revokeApiKey(ctx.params.key_id);
  if (result === CustomerError.ApiKeyNotFound) return failureOf(result);
  return { status: 200, body: apiKeyToWire(result) };
}
