import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

type Query = NonNullable<AdminOperations['admin_plans_delete']['parameters']['query']>;

export async function admin_plans_delete(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_plans_delete'> | Failure> {
  const q = ctx.query as Query;
  const plan = await ctx.services.plans.remove(ctx.params.plan_id ?? '', q.actor);
  return plan instanceof Failure ? plan : { status: 200, body: planToWire(plan) };
}
