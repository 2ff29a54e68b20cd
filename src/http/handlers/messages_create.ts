import { isDryRun } from '../../domain/billing/token-quote.ts';
import type { Caller } from '../../customers/service.ts';
import type { PublicContext, Reply, RequestContext } from '../handler.ts';
import { tokenQuoteReply } from '../serialize/quotes.ts';

export async function messages_create(ctx: PublicContext<'messages_create'>): Promise<Reply> {
  if (isDryRun(ctx.body)) return tokenQuoteReply(await ctx.services.messages.quote(passthroughRequest(ctx)), ctx.services.discovery.currency());
  const result = await ctx.services.messages.create(passthroughRequest(ctx), ctx.sink);
  if (result.failure) return { failure: result.failure, log: result.log };
  return { streamed: true, log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
}

type Passing = Pick<RequestContext<unknown, Caller>, 'caller' | 'requestId' | 'operationId' | 'body' | 'rawBody' | 'headers'>;

/** The parts of an HTTP request a passthrough service needs (its operations require a key); customer credentials are not among them. */
export function passthroughRequest(ctx: Passing) {
  return {
    caller: ctx.caller,
    requestId: ctx.requestId,
    endpoint: ctx.operationId,
    body: ctx.body as Record<string, unknown>,
    rawBody: ctx.rawBody,
    headers: ctx.headers,
  };
}
