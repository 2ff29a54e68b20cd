import { Failure } from '../../domain/failure.ts';
import { CustomerError } from '../../customers/errors.ts';
import type { AdminOperations } from '../../types.ts';
import { failureOf } from '../errors.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { alertSettingsToWire } from '../serialize/alerts.ts';

export async function admin_alerts_update(ctx: AdminContext<'admin_alerts_update'>): Promise<Ok<AdminOperations, 'admin_alerts_update'> | Failure> {
  const customer = await ctx.services.customers.getCustomer(ctx.params.customer_id);
  if (typeof customer === 'string') return failureOf(CustomerError.CustomerNotFound);
  const settings = await ctx.services.alerts.update(customer.id, ctx.body);
  return settings instanceof Failure ? settings : { status: 200, body: alertSettingsToWire(settings) };
}
