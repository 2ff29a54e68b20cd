import type { AdminOperations } from '../../types.ts';
import { Failure } from '../../domain/failure.ts';
import { watermarkHeaders } from '../../domain/account/window.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { requestLogToWire } from '../serialize/ledger.ts';

type Query = NonNullable<AdminOperations['admin_request_logs_list']['parameters']['query']>;

export async function admin_request_logs_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_request_logs_list'> | Failure> {
  const q = ctx.query as Query;
  // `from`/`to` are storable instants: the contract's date-time format (src/http/spec.ts) says so.
  const page = await ctx.services.account.requestLogOfAny({
    limit: Number(q.limit ?? 50),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.endpoint ? { endpoint: q.endpoint } : {}),
    ...(q.billable !== undefined ? { billable: q.billable } : {}),
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
    ...(q.before ? { before: BigInt(q.before) } : {}),
  });
  if (page instanceof Failure) return page;
  const data = page.rows.map(requestLogToWire);
  return {
    status: 200,
    headers: watermarkHeaders(page.watermark),
    body: { object: 'list', data, has_more: page.hasMore, next_before: page.hasMore ? data.at(-1)!.id : null, watermark: page.watermark.toISOString() },
  };
}
