import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { customerToWire } from '../serialize/admin.ts';
import { errorReply } from '../errors.ts';

type Body = NonNullable<AdminOperations['admin_customers_create']['requestBody']>['content']['application/json'];

export async function admin_customers_create(ctx: RequestContext<Body>): Promise<Reply<AdminOperations, 'admin_customers_create'>> {
  const result = await ctx.services.customers.createCustomer({ name: ctx.body.name, externalReference: ctx.body.external_reference ?? null });
  if (result === CustomerError.ExternalReferenceTaken) return errorReply(409, result, 'external_reference');
  return { status: 201, body: customerToWire(result) };
}
