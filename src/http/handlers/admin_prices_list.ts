import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { modelPriceToWire } from '../serialize/plans.ts';

type Query = NonNullable<AdminOperations['admin_prices_list']['parameters']['query']>;

export async function admin_prices_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_prices_list'> | Failure> {
  const q = ctx.query as Query;
  const models = await ctx.services.plans.prices({ ...(q.customer_id ? { customerId: q.customer_id } : q.plan_id ? { planId: q.plan_id } : {}) });
  if (models instanceof Failure) return models;
  return { status: 200, body: { object: 'list', currency: ctx.services.discovery.currency(), data: models.map(modelPriceToWire) } };
}
