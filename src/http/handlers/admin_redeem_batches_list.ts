import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

type Query = NonNullable<AdminOperations['admin_redeem_batches_list']['parameters']['query']>;

export async function admin_redeem_batches_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_redeem_batches_list'>> {
  const q = ctx.query as Query;
  const limit = Number(q.limit ?? 50);
  const rows = await ctx.services.redeem.listBatches({ limit: limit + 1, ...(q.after ? { after: q.after } : {}) });
  const currency = ctx.services.discovery.currency();
  const data = rows.slice(0, limit).map((b) => batchToWire(b, currency));
  const hasMore = rows.length > limit;
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_after: hasMore ? data.at(-1)!.id : null } };
}
