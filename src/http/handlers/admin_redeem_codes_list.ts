import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { codeToWire } from '../serialize/redeem.ts';

type Query = NonNullable<AdminOperations['admin_redeem_codes_list']['parameters']['query']>;

export async function admin_redeem_codes_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_redeem_codes_list'>> {
  const q = ctx.query as Query;
  const limit = Number(q.limit ?? 50);
  const rows = await ctx.services.redeem.listCodes({
    limit: limit + 1,
    ...(q.after ? { after: q.after } : {}),
    ...(q.batch_id ? { batchId: q.batch_id } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
  });
  const currency = ctx.services.discovery.currency();
  const data = rows.slice(0, limit).map((c) => codeToWire(c, currency));
  const hasMore = rows.length > limit;
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_after: hasMore ? data.at(-1)!.id : null } };
}
