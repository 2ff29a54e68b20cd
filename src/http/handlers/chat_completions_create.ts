import { isDryRun } from '../../domain/billing/token-quote.ts';
import type { Reply, PublicContext } from '../handler.ts';
import { tokenQuoteReply } from '../serialize/quotes.ts';
import { passthroughRequest } from './messages_create.ts';

export async function chat_completions_create(ctx: PublicContext<'chat_completions_create'>): Promise<Reply> {
  if (isDryRun(ctx.body)) return tokenQuoteReply(await ctx.services.chat.quote(passthroughRequest(ctx)), ctx.services.discovery.currency());
  const result = await ctx.services.chat.create(passthroughRequest(ctx), ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}
