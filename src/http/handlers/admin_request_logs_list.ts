import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { requestLogToWire } from '../serialize/ledger.ts';

type Query = NonNullable<AdminOperations['admin_request_logs_list']['parameters']['query']>;

export async function admin_request_logs_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_request_logs_list'> | Failure> {
  const q = ctx.query as Query;
  // `from`/`to` are storable instants: the contract's date-time format (src/http/spec.ts) says so.
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  const { rows, hasMore } = await ctx.services.requestLogs.list({
    limit: Number(q.limit ?? 50),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.endpoint ? { endpoint: q.endpoint } : {}),
    ...(q.billable !== undefined ? { billable: q.billable } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(q.before ? { before: BigInt(q.before) } : {}),
  });
  const data = rows.map(requestLogToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.id : null } };
}
