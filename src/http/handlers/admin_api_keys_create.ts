import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { errorReply } from '../errors.ts';

type Body = NonNullable<AdminOperations['admin_api_keys_create']['requestBody']>['content']['application/json'];

export async function admin_api_keys_create(ctx: RequestContext<Body | undefined>): Promise<Reply<AdminOperations, 'admin_api_keys_create'>> {
  const result = await ctx.services.customers.createApiKey(ctx.params.customer_id ?? '', {
    name: ctx.body?.name ?? null,
    allowedModels: ctx.body?.allowed_models ?? null,
  });
  if (result === CustomerError.CustomerNotFound) return errorReply(404, result);
  if (result === CustomerError.UnknownModel) return errorReply(400, result, 'allowed_models');
  // The only response that ever carries the secret.
  return { status: 201, body: { ...apiKeyToWire(result.apiKey), key: result.secret } };
}
