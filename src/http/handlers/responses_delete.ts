import type { StoredAction } from '../../domain/responses/stored.ts';
import type { PublicContext, Reply } from '../handler.ts';
import { passthroughRequest } from './messages_create.ts';

export const responses_delete = (ctx: PublicContext<'responses_delete'>): Promise<Reply> => storedReply(ctx, 'delete');

/** A call on a relayed response, proxied to its route for its owner; the answer goes out through the sink. */
export async function storedReply(
  ctx: PublicContext<'responses_get' | 'responses_delete' | 'responses_cancel' | 'responses_input_items'>,
  action: StoredAction,
): Promise<Reply> {
  const result = await ctx.services.responses.stored(passthroughRequest(ctx), action, ctx.params.response_id, ctx.query, ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log };
}
