// POST /v1/messages on the shared passthrough flow, and count_tokens (free: nothing is reserved).
import { anthropicRequest } from '../../providers/index.ts';
import type { QuoteTokens, TokenQuote } from '../billing/token-quote.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import { countByProvider, tokenCount, type Counted } from '../passthrough/count.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { modelFor } from '../passthrough/lookup.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { anthropicMessages, estimateMessagesInput, inspectMessages, upstreamBody } from './protocol.ts';

export interface MessagesService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
  /** The hold `create` would take for this body now (`dry_run: true`): nothing is held or sent. */
  quote(request: PassthroughRequest): Promise<TokenQuote | Failure>;
  countTokens(request: PassthroughRequest): Promise<Counted<{ input_tokens: number }>>;
}

export function createMessagesService(deps: { passthrough: Passthrough; discovery: DiscoveryService; quote: QuoteTokens }): MessagesService {
  return {
    create: (request, sink) => deps.passthrough.run(anthropicMessages, request, sink),
    quote: (request) => deps.quote(anthropicMessages, request),

    async countTokens(request) {
      const named = modelFor(deps.discovery, request.caller, request.body.model, 'messages');
      if (named instanceof Failure) return { failure: named, log: {} };
      const { model } = named;
      const checked = inspectMessages(request.body, model.max_output_tokens, true);
      if (checked instanceof Failure) return { failure: checked, log: { model: model.id } };
      return countByProvider({
        model,
        route: model.routes.find((r) => r.provider.protocol === 'anthropic' && r.provider.baseUrl),
        request: (route) =>
          anthropicRequest(route.provider, '/v1/messages/count_tokens', request.headers, upstreamBody(request, route.upstreamModel), route.upstreamModel),
        read: (answer) => {
          const counted = tokenCount((answer as { input_tokens?: unknown } | undefined)?.input_tokens);
          return counted === undefined ? undefined : { input_tokens: counted };
        },
        estimate: () => ({ input_tokens: estimateMessagesInput(request.body, mediaAllowance('messages', model.media_tokens)) }),
        refused: (error, route) => anthropicMessages.failure(error, route, model.id),
      });
    },
  };
}
