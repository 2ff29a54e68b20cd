import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_api_keys_get(ctx: AdminContext<'admin_api_keys_get'>): Promise<Ok<AdminOperations, 'admin_api_keys_get'> | Failure> {
  const result = await ctx.services.customers.getApiKey(ctx.params.key_id);
  if (typeof result === 'string') return failureOf(result);
  return { status: 200, body: apiKeyToWire(result) };
}
