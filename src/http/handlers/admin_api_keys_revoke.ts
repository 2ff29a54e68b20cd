import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { errorReply } from '../errors.ts';

export async function admin_api_keys_revoke(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_api_keys_revoke'>> {
  const result = await ctx.services.customers.revokeApiKey(ctx.params.key_id ?? '');
  if (result === CustomerError.ApiKeyNotFound) return errorReply(404, result);
  return { status: 200, body: apiKeyToWire(result) };
}
