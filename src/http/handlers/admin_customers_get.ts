import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { customerToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_customers_get(ctx: AdminContext<'admin_customers_get'>): Promise<Ok<AdminOperations, 'admin_customers_get'> | Failure> {
  const result = await ctx.services.customers.getCustomer(ctx.params.customer_id);
  if (result === CustomerError.CustomerNotFound) return failureOf(result);
  return { status: 200, body: customerToWire(result) };
}
