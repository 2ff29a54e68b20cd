import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { customerToWire } from '../serialize/admin.ts';
import { failureOf } from '../errors.ts';

export async function admin_customers_update(ctx: AdminContext<'admin_customers_update'>): Promise<Ok<AdminOperations, 'admin_customers_update'> | Failure> {
  const result = await ctx.services.customers.updateCustomer(ctx.params.customer_id, {
    ...(ctx.body.name !== undefined ? { name: ctx.body.name } : {}),
    ...(ctx.body.status !== undefined ? { status: ctx.body.status } : {}),
  });
  if (typeof result === 'string') return failureOf(result);
  return { status: 200, body: customerToWire(result) };
}
