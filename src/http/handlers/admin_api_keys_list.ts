import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_api_keys_list(ctx: AdminContext<'admin_api_keys_list'>): Promise<Ok<AdminOperations, 'admin_api_keys_list'> | Failure> {
  const result = await ctx.services.customers.listApiKeys(ctx.params.customer_id);
  if (result === CustomerError.CustomerNotFound) return failureOf(result);
  return { status: 200, body: { object: 'list', data: result.map(apiKeyToWire) } };
}
