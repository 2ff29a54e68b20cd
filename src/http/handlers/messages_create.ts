import { isDryRun } from '../../domain/billing/token-quote.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { tokenQuoteReply } from '../serialize/quotes.ts';

export async function messages_create(ctx: RequestContext): Promise<Reply> {
  if (isDryRun(ctx.body)) return tokenQuoteReply(await ctx.services.messages.quote(passthroughRequest(ctx)), ctx.services.discovery.currency());
  const result = await ctx.services.messages.create(passthroughRequest(ctx), ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}

/** The parts of an HTTP request a passthrough service needs; customer credentials are not among them. */
export function passthroughRequest(ctx: RequestContext) {
  return {
    caller: ctx.caller!, // passthrough operations require a key (spec security)
    requestId: ctx.requestId,
    endpoint: ctx.operationId,
    body: ctx.body as Record<string, unknown>,
    rawBody: ctx.rawBody,
    headers: ctx.headers,
  };
}
