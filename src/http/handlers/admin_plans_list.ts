import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { planToWire } from '../serialize/plans.ts';

export async function admin_plans_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_plans_list'>> {
  return { status: 200, body: { object: 'list', data: (await ctx.services.plans.list()).map(planToWire) } };
}
