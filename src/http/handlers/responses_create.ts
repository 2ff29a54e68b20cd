import { isDryRun } from '../../domain/billing/token-quote.ts';
import type { Reply, PublicContext } from '../handler.ts';
import { tokenQuoteReply } from '../serialize/quotes.ts';
import { passthroughRequest } from './messages_create.ts';

export async function responses_create(ctx: PublicContext<'responses_create'>): Promise<Reply> {
  if (isDryRun(ctx.body)) return tokenQuoteReply(await ctx.services.responses.quote(passthroughRequest(ctx)), ctx.services.discovery.currency());
  const result = await ctx.services.responses.create(passthroughRequest(ctx), ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}
