import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { customerPricingToWire } from '../serialize/plans.ts';

export async function admin_customer_pricing_update(
  ctx: AdminContext<'admin_customer_pricing_update'>,
): Promise<Ok<AdminOperations, 'admin_customer_pricing_update'> | Failure> {
  const pricing = await ctx.services.plans.setCustomerPricing(ctx.params.customer_id, {
    ...(ctx.body.plan_id !== undefined ? { planId: ctx.body.plan_id } : {}),
    ...(ctx.body.overrides !== undefined ? { overrides: ctx.body.overrides } : {}),
    ...(ctx.body.actor !== undefined ? { actor: ctx.body.actor } : {}),
  });
  return pricing instanceof Failure ? pricing : { status: 200, body: customerPricingToWire(pricing) };
}
