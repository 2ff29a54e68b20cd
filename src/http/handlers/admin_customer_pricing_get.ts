import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { customerPricingToWire } from '../serialize/plans.ts';

export async function admin_customer_pricing_get(
  ctx: AdminContext<'admin_customer_pricing_get'>,
): Promise<Ok<AdminOperations, 'admin_customer_pricing_get'> | Failure> {
  const pricing = await ctx.services.plans.customerPricing(ctx.params.customer_id);
  return pricing instanceof Failure ? pricing : { status: 200, body: customerPricingToWire(pricing) };
}
