import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { customerToWire } from '../serialize/admin.ts';

export async function admin_customers_list(ctx: AdminContext<'admin_customers_list'>): Promise<Ok<AdminOperations, 'admin_customers_list'>> {
  const q = ctx.query;
  const { customers, hasMore } = await ctx.services.customers.listCustomers({
    limit: q.limit ?? 50,
    ...(q.after ? { after: q.after } : {}),
    ...(q.q ? { q: q.q } : {}),
  });
  const data = customers.map(customerToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_after: hasMore ? data.at(-1)!.id : null } };
}
