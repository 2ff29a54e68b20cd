import type { PublicOperations } from '../../types.ts';
import type { Ok, Reply, PublicContext } from '../handler.ts';
import { passthroughRequest } from './messages_create.ts';

/** Free of charge: nothing is reserved or settled; the request log records it. */
export async function messages_count_tokens(ctx: PublicContext<'messages_count_tokens'>): Promise<Ok<PublicOperations, 'messages_count_tokens'> | Reply> {
  const result = await ctx.services.messages.countTokens(passthroughRequest(ctx));
  if ('failure' in result) return { failure: result.failure, log: result.log };
  return { status: 200, body: result.counted, log: result.log };
}
