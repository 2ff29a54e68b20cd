import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { errorReply } from '../errors.ts';

export async function admin_api_keys_list(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_api_keys_list'>> {
  const result = await ctx.services.customers.listApiKeys(ctx.params.customer_id ?? '');
  if (result === CustomerError.CustomerNotFound) return errorReply(404, result);
  return { status: 200, body: { object: 'list', data: result.map(apiKeyToWire) } };
}
