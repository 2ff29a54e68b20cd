import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

type Body = AdminOperations['admin_plans_create']['requestBody']['content']['application/json'];

export async function admin_plans_create(ctx: RequestContext<Body>): Promise<Ok<AdminOperations, 'admin_plans_create'> | Failure> {
  const plan = await ctx.services.plans.create(ctx.body);
  return plan instanceof Failure ? plan : { status: 201, body: planToWire(plan) };
}
