import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { KeyChange } from '../../customers/service.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

type Body = AdminOperations['admin_api_keys_update']['requestBody']['content']['application/json'];

/** The fields a body sets; absent ones are left out so that they stay as they are. */
export function keyChangeOf(body: Body): KeyChange {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.allowed_models !== undefined ? { allowedModels: body.allowed_models } : {}),
    ...(body.expires_at !== undefined ? { expiresAt: body.expires_at === null ? null : new Date(body.expires_at) } : {}),
    ...(body.limits !== undefined ? { limits: body.limits } : {}),
  };
}

export async function admin_api_keys_update(ctx: AdminContext<'admin_api_keys_update'>): Promise<Ok<AdminOperations, 'admin_api_keys_update'> | Failure> {
  const result = await ctx.services.customers.updateApiKey(ctx.params.key_id, keyChangeOf(ctx.body));
  if (result === CustomerError.UnknownModel) return failureOf(result, 'allowed_models');
  if (result === CustomerError.InvalidLimit) return failureOf(result, 'limits.spend_limit.amount');
  if (typeof result === 'string') return failureOf(result);
  return { status: 200, body: apiKeyToWire(result) };
}
