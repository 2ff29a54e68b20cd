import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_api_keys_rotate(ctx: AdminContext<'admin_api_keys_rotate'>): Promise<Ok<AdminOperations, 'admin_api_keys_rotate'> | Failure> {
  const result = await ctx.services.customers.rotateApiKey(ctx.params.key_id, ctx.body?.grace_seconds ?? 0);
  if (typeof result === 'string') return failureOf(result);
  // The new secret, shown this once.
  return { status: 200, body: { ...apiKeyToWire(result.apiKey), key: result.secret } };
}
