import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { CustomerError } from '../../customers/errors.ts';
import { customerToWire } from '../serialize/admin.ts';
import { errorReply } from '../errors.ts';

export async function admin_customers_get(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_customers_get'>> {
  const result = await ctx.services.customers.getCustomer(ctx.params.customer_id ?? '');
  if (result === CustomerError.CustomerNotFound) return errorReply(404, result);
  return { status: 200, body: customerToWire(result) };
}
