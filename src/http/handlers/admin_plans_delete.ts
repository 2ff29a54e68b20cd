import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { AdminContext, Ok } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

export async function admin_plans_delete(ctx: AdminContext<'admin_plans_delete'>): Promise<Ok<AdminOperations, 'admin_plans_delete'> | Failure> {
  const q = ctx.query;
  const plan = await ctx.services.plans.remove(ctx.params.plan_id, q.actor);
  return plan instanceof Failure ? plan : { status: 200, body: planToWire(plan) };
}
