import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { holdToWire } from '../serialize/ledger.ts';

export async function admin_reservations_list(ctx: AdminContext<'admin_reservations_list'>): Promise<Ok<AdminOperations, 'admin_reservations_list'>> {
  const q = ctx.query;
  const { holds, hasMore } = await ctx.services.holdsReview.list({
    limit: q.limit ?? 50,
    ...(q.status ? { status: q.status } : {}),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.before ? { before: q.before } : {}),
    ...(q.stale ? { stale: true } : {}),
  });
  const data = holds.map(holdToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.ref : null } };
}
