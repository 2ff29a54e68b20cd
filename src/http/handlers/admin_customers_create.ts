import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { customerToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

type Body = NonNullable<AdminOperations['admin_customers_create']['requestBody']>['content']['application/json'];

export async function admin_customers_create(ctx: RequestContext<Body>): Promise<Ok<AdminOperations, 'admin_customers_create'> | Failure> {
  const result = await ctx.services.customers.createCustomer({ name: ctx.body.name, externalReference: ctx.body.external_reference ?? null });
  if (result === CustomerError.ExternalReferenceTaken) return failureOf(result, 'external_reference');
  return { status: 201, body: customerToWire(result) };
}
