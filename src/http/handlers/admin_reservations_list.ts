import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { holdToWire } from '../serialize/ledger.ts';

type Query = NonNullable<AdminOperations['admin_reservations_list']['parameters']['query']>;

export async function admin_reservations_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_reservations_list'>> {
  const q = ctx.query as Query;
  const { holds, hasMore } = await ctx.services.holdsReview.list({
    limit: Number(q.limit ?? 50),
    ...(q.status ? { status: q.status } : {}),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.before ? { before: q.before } : {}),
    ...(q.stale ? { stale: true } : {}),
  });
  const data = holds.map(holdToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.ref : null } };
}
