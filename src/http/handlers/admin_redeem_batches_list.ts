import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { batchToWire } from '../serialize/redeem.ts';

export async function admin_redeem_batches_list(ctx: AdminContext<'admin_redeem_batches_list'>): Promise<Ok<AdminOperations, 'admin_redeem_batches_list'>> {
  const q = ctx.query;
  const limit = q.limit ?? 50;
  const rows = await ctx.services.redeem.listBatches({ limit: limit + 1, ...(q.after ? { after: q.after } : {}) });
  const currency = ctx.services.discovery.currency();
  const data = rows.slice(0, limit).map((b) => batchToWire(b, currency));
  const hasMore = rows.length > limit;
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_after: hasMore ? data.at(-1)!.id : null } };
}
