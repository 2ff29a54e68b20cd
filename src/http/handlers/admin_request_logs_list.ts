import type { AdminOperations } from '../../types.ts';
import { Failure } from '../../domain/failure.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { HttpError } from '../errors.ts';
import { requestLogToWire } from '../serialize/ledger.ts';

type Query = NonNullable<AdminOperations['admin_request_logs_list']['parameters']['query']>;

/**
 * A `date-time` the database can compare with: RFC 3339 admits a leap second (23:59:60), year 0000
 * and offsets that carry a date past 9999, none of which a timestamp column (or a JS Date) holds.
 */
function instant(value: string | undefined, param: 'from' | 'to'): Date | Failure | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) {
    return new Failure(HttpError.InvalidRequest, `Invalid query field \`${param}\`: not a representable time (years 0001 to 9999 in UTC, no leap second).`, { param });
  }
  return date;
}

export async function admin_request_logs_list(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_request_logs_list'> | Failure> {
  const q = ctx.query as Query;
  const from = instant(q.from, 'from');
  if (from instanceof Failure) return from;
  const to = instant(q.to, 'to');
  if (to instanceof Failure) return to;
  const { rows, hasMore } = await ctx.services.requestLogs.list({
    limit: Number(q.limit ?? 50),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.endpoint ? { endpoint: q.endpoint } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(q.before ? { before: BigInt(q.before) } : {}),
  });
  const data = rows.map(requestLogToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, next_before: hasMore ? data.at(-1)!.id : null } };
}
