import { type Failure } from '../../domain/failure.ts';
import { CustomerError } from '../../customers/errors.ts';
import type { AdminOperations } from '../../types.ts';
import { failureOf } from '../errors.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { alertSettingsToWire } from '../serialize/alerts.ts';

export async function admin_alerts_get(ctx: AdminContext<'admin_alerts_get'>): Promise<Ok<AdminOperations, 'admin_alerts_get'> | Failure> {
  const customer = await ctx.services.customers.getCustomer(ctx.params.customer_id);
  if (typeof customer === 'string') return failureOf(CustomerError.CustomerNotFound);
  return { status: 200, body: alertSettingsToWire(await ctx.services.alerts.settings(customer.id)) };
}
