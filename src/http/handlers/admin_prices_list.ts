import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { modelPriceToWire } from '../serialize/plans.ts';

export async function admin_prices_list(ctx: AdminContext<'admin_prices_list'>): Promise<Ok<AdminOperations, 'admin_prices_list'> | Failure> {
  const q = ctx.query;
  const models = await ctx.services.plans.prices({ ...(q.customer_id ? { customerId: q.customer_id } : q.plan_id ? { planId: q.plan_id } : {}) });
  if (models instanceof Failure) return models;
  return { status: 200, body: { object: 'list', currency: ctx.services.discovery.currency(), data: models.map(modelPriceToWire) } };
}
