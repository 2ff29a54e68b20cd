import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

export async function admin_plans_get(ctx: AdminContext<'admin_plans_get'>): Promise<Ok<AdminOperations, 'admin_plans_get'> | Failure> {
  const plan = await ctx.services.plans.get(ctx.params.plan_id);
  return plan instanceof Failure ? plan : { status: 200, body: planToWire(plan) };
}
