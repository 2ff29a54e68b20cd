import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { customerToWire } from '../serialize/admin.ts';

type Query = NonNullable<AdminOperations['admin_customers_list']['parameters']['query']>;

export async function admin_customers_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_customers_list'>> {
  const q = ctx.query as Query;
  const { customers, hasMore } = await ctx.services.customers.listCustomers({
    limit: Number(q.limit ?? 50),
    ...(q.after ? { after: q.after } : {}),
    ...(q.q ? { q: q.q } : {}),
  });
  const data = customers.map(customerToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_after: hasMore ? data.at(-1)!.id : null } };
}
