import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

export async function admin_plans_update(ctx: AdminContext<'admin_plans_update'>): Promise<Ok<AdminOperations, 'admin_plans_update'> | Failure> {
  const plan = await ctx.services.plans.update(ctx.params.plan_id, ctx.body);
  return plan instanceof Failure ? plan : { status: 200, body: planToWire(plan) };
}
