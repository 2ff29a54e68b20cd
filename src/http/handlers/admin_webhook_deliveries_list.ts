import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { deliveryToWire } from '../serialize/alerts.ts';

export async function admin_webhook_deliveries_list(
  ctx: AdminContext<'admin_webhook_deliveries_list'>,
): Promise<Ok<AdminOperations, 'admin_webhook_deliveries_list'>> {
  const q = ctx.query;
  const { rows, hasMore } = await ctx.services.alerts.deliveries({
    limit: q.limit ?? 50,
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.before ? { before: q.before } : {}),
  });
  const data = rows.map(deliveryToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.id : null } };
}
