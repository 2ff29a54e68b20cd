// POST /v1/messages on the shared passthrough flow, and count_tokens (free: nothing is reserved).
import { callUpstream, collect } from '../../providers/http.ts';
import { anthropicHeaders, anthropicUrl } from '../../providers/anthropic/headers.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import type { QuoteTokens, TokenQuote } from '../billing/token-quote.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { anthropicMessages, estimateMessagesInput, inspectMessages, upstreamBody } from './protocol.ts';

export interface MessagesService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
  /** The hold `create` would take for this body now (`dry_run: true`): nothing is held or sent. */
  quote(request: PassthroughRequest): Promise<TokenQuote | Failure>;
  countTokens(request: PassthroughRequest): Promise<{ counted: { input_tokens: number }; log: LogFields } | { failure: Failure; log: LogFields }>;
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

export function createMessagesService(deps: { passthrough: Passthrough; discovery: DiscoveryService; quote: QuoteTokens }): MessagesService {
  return {
    create: (request, sink) => deps.passthrough.run(anthropicMessages, request, sink),
    quote: (request) => deps.quote(anthropicMessages, request),

    async countTokens(request) {
      const id = request.body.model;
      if (typeof id !== 'string' || id === '')
        return { failure: passthroughFailures.invalid('model', 'model must be a non-empty string naming a model from GET /v1/models.'), log: {} };
      const model = deps.discovery.findModel(request.caller, id);
      if (!model) {
        const retired = deps.discovery.retirement(request.caller, id);
        return { failure: retired ? passthroughFailures.modelRetired(retired) : passthroughFailures.modelNotFound(id.slice(0, 200)), log: {} };
      }
      if (model.group !== 'messages') return { failure: passthroughFailures.wrongEndpoint(model.id, model.group), log: { model: model.id } };
      const checked = inspectMessages(request.body, model.max_output_tokens, true);
      if (checked instanceof Failure) return { failure: checked, log: { model: model.id } };
      const estimate = () => ({
        counted: { input_tokens: estimateMessagesInput(request.body, mediaAllowance('messages', model.media_tokens)) },
        log: { model: model.id, usage_estimated: true },
      });
      const route = model.routes.find((r) => r.provider.protocol === 'anthropic' && r.provider.baseUrl);
      if (!route) return estimate(); // nothing can count it: the gateway's own estimate, marked in the log
      const { timeouts } = route.provider;
      const answer = await callUpstream({
        url: anthropicUrl(route.provider.baseUrl!, '/v1/messages/count_tokens'),
        headers: anthropicHeaders(route.provider, { version: one(request.headers['anthropic-version']), beta: one(request.headers['anthropic-beta']) }),
        body: upstreamBody(request, route.upstreamModel),
        signal: AbortSignal.timeout(timeouts.response_ms),
        connectMs: timeouts.connect_ms,
        proxy: route.provider.proxy,
        firstByteMs: timeouts.first_byte_ms,
        idleMs: timeouts.idle_ms,
      });
      const log = { model: model.id, provider: route.provider.id };
      if (answer instanceof UpstreamError) {
        // The provider's verdict on the request itself is the client's to see; outages are not.
        if (answer.kind === 'status' && answer.status && answer.status < 500 && answer.status !== 429)
          return { failure: anthropicMessages.failure(answer, route, model.id), log };
        return estimate();
      }
      const text = await collect(answer.body, 1024 * 1024);
      let counted: unknown;
      try {
        counted = (JSON.parse(text) as { input_tokens?: unknown }).input_tokens;
      } catch {
        counted = undefined;
      }
      if (typeof counted !== 'number' || !Number.isSafeInteger(counted) || counted < 0) return estimate();
      return { counted: { input_tokens: counted }, log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
    },
  };
}
