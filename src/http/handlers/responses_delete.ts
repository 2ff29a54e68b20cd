import type { StoredAction } from '../../domain/responses/stored.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { passthroughRequest } from './messages_create.ts';

export const responses_delete = (ctx: RequestContext): Promise<Reply> => storedReply(ctx, 'delete');

/** A call on a relayed response, proxied to its route for its owner; the answer goes out through the sink. */
export async function storedReply(ctx: RequestContext, action: StoredAction): Promise<Reply> {
  const result = await ctx.services.responses.stored(passthroughRequest(ctx), action, ctx.params.response_id!, ctx.query, ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log };
}
