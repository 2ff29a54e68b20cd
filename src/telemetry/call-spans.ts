// The client span of each attempt of an upstream call, on either client, as the providers' call
// hooks (src/providers/call.ts) tell of it: named by the GenAI operation and the model sent for an
// inference, by the method otherwise; `server.address` is the catalogue's provider id, never its
// host, and there is no url attribute. It ends when the answer's body was read to its end (a
// relayed stream, a download) or cut, at once when there is none. `traceparent` goes on the
// attempt's headers only with TRACE_CONTEXT_TO_PROVIDERS.
import type { Attributes, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { Config } from '../config.ts';
import type { CallHooks } from '../providers/index.ts';
import { failedSpan, operationOfProtocol } from './attributes.ts';

export function callSpans(tracer: Tracer, options: Pick<Config['tracing'], 'genAi' | 'contextToProviders'>): CallHooks<Span> {
  return {
    onAttempt(attempt) {
      const provider = attempt.provider.id;
      const operation = options.genAi && attempt.model ? operationOfProtocol(attempt.provider.protocol) : undefined;
      const attributes: Attributes = { 'http.request.method': attempt.method, 'server.address': provider, 'gateway.provider': provider };
      if (options.genAi) {
        attributes['gen_ai.provider.name'] = provider;
        if (operation) attributes['gen_ai.operation.name'] = operation;
        if (attempt.model) attributes['gen_ai.request.model'] = attempt.model;
      }
      const span = tracer.startSpan(operation ? `${operation} ${attempt.model}` : attempt.method, { kind: SpanKind.CLIENT, attributes });
      if (options.contextToProviders) Object.assign(attempt.headers, traceContextHeaders(span.spanContext()));
      return span;
    },
    onResult(_attempt, span, outcome, status, body) {
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if (outcome !== 'ok') failedSpan(span, status === undefined ? outcome : String(status));
      else if (status !== undefined && status >= 400) failedSpan(span, String(status));
      if (!body) return span.end();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        span.end();
      };
      body.once('end', end).once('close', end);
    },
  };
}

/** W3C Trace Context of a span: only traceparent and tracestate (never the client's baggage). */
export function traceContextHeaders(spanContext: SpanContext): Record<string, string> {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const headers: Record<string, string> = { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
  const state = spanContext.traceState?.serialize();
  if (state) headers.tracestate = state;
  return headers;
}
