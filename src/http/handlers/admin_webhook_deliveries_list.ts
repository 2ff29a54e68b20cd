import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { deliveryToWire } from '../serialize/alerts.ts';

type Query = NonNullable<AdminOperations['admin_webhook_deliveries_list']['parameters']['query']>;

export async function admin_webhook_deliveries_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_webhook_deliveries_list'>> {
  const q = ctx.query as Query;
  const { rows, hasMore } = await ctx.services.alerts.deliveries({
    limit: Number(q.limit ?? 50),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.before ? { before: q.before } : {}),
  });
  const data = rows.map(deliveryToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.id : null } };
}
