import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { apiKeyToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

type Body = NonNullable<AdminOperations['admin_api_keys_create']['requestBody']>['content']['application/json'];

export async function admin_api_keys_create(ctx: RequestContext<Body | undefined>): Promise<Ok<AdminOperations, 'admin_api_keys_create'> | Failure> {
  const result = await ctx.services.customers.createApiKey(ctx.params.customer_id ?? '', {
    name: ctx.body?.name ?? null,
    allowedModels: ctx.body?.allowed_models ?? null,
  });
  if (result === CustomerError.CustomerNotFound) return failureOf(result);
  if (result === CustomerError.UnknownModel) return failureOf(result, 'allowed_models');
  // The only response that ever carries the secret.
  return { status: 201, body: { ...apiKeyToWire(result.apiKey), key: result.secret } };
}
