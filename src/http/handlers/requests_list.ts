import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { accountRequestToWire } from '../serialize/account.ts';

type Query = NonNullable<PublicOperations['requests_list']['parameters']['query']>;

export async function requests_list(ctx: RequestContext): Promise<Ok<PublicOperations, 'requests_list'>> {
  const q = ctx.query as Query;
  const { rows, hasMore } = await ctx.services.account.requests(ctx.caller!, {
    limit: Number(q.limit ?? 50),
    ...(q.after ? { after: BigInt(q.after) } : {}),
    ...(q.model ? { model: q.model } : {}),
    ...(q.key_id ? { keyId: q.key_id } : {}),
    ...(q.endpoint ? { endpoint: q.endpoint } : {}),
    ...(q.status !== undefined ? { status: Number(q.status) } : {}),
    ...(q.billable !== undefined ? { billable: q.billable } : {}),
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
  });
  const data = rows.map(accountRequestToWire);
  return { status: 200, body: { object: 'list', data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null } };
}
