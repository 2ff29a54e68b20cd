import type { Reply, PublicContext } from '../handler.ts';
import { passthroughRequest } from './messages_create.ts';

/** Billed like a response: held, then charged by the answer's usage. */
export async function responses_compact(ctx: PublicContext<'responses_compact'>): Promise<Reply> {
  const result = await ctx.services.responses.compact(passthroughRequest(ctx), ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}
