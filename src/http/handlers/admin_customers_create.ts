import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { customerToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_customers_create(ctx: AdminContext<'admin_customers_create'>): Promise<Ok<AdminOperations, 'admin_customers_create'> | Failure> {
  const result = await ctx.services.customers.createCustomer({ name: ctx.body.name, externalReference: ctx.body.external_reference ?? null });
  if (result === CustomerError.ExternalReferenceTaken) return failureOf(result, 'external_reference');
  return { status: 201, body: customerToWire(result) };
}
