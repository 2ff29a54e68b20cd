// POST /v1/chat/completions on the shared passthrough flow.
import type { QuoteTokens, TokenQuote } from '../billing/token-quote.ts';
import type { Failure } from '../failure.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { openaiChat } from './protocol.ts';

export interface ChatService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
  /** The hold `create` would take for this body now (`dry_run: true`): nothing is held or sent. */
  quote(request: PassthroughRequest): Promise<TokenQuote | Failure>;
}

export function createChatService(deps: { passthrough: Passthrough; quote: QuoteTokens }): ChatService {
  return {
    create: (request, sink) => deps.passthrough.run(openaiChat, request, sink),
    quote: (request) => deps.quote(openaiChat, request),
  };
}
