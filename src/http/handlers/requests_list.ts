import { Failure } from '../../domain/failure.ts';
import { watermarkHeaders } from '../../domain/account/window.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { accountRequestToWire } from '../serialize/account.ts';

type Query = NonNullable<PublicOperations['requests_list']['parameters']['query']>;

export async function requests_list(ctx: RequestContext): Promise<Ok<PublicOperations, 'requests_list'> | Failure> {
  const q = ctx.query as Query;
  const page = await ctx.services.account.requests(ctx.caller!, {
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
  if (page instanceof Failure) return page;
  const data = page.rows.map(accountRequestToWire);
  return {
    status: 200,
    headers: watermarkHeaders(page.watermark),
    body: {
      object: 'list',
      data,
      has_more: page.hasMore,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      watermark: page.watermark.toISOString(),
    },
  };
}
