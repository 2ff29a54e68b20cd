// The server span of each request (an Express step right after the request id, installed only
// when tracing is on). It continues the client's W3C trace context (`traceparent`), runs the rest
// of the request in its context (so upstream calls become its children), and ends when the
// response closed: after the request's charge is durable, when it holds money, so the span
// carries the tokens billed and the cost, dated at the response's close. Named by method and route
// template (`POST /v1/messages`, `GET /v1/requests/{request_id}`): neither the raw path (ids) nor the
// query (a Gemini client may put its key there) is recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import type { Config } from '../config.ts';
import { stateOf, type RequestState } from '../http/steps/state.ts';
import type { LogFields } from '../logs/request-logs.ts';
import { failedSpan, gatewayAttributes, genAiAttributes } from './attributes.ts';

/** Probes, scrapes and the console's files make no spans. */
const UNTRACED = /^\/(healthz|readyz|metrics|console)(\/|$)/;

export function serverStep(tracer: Tracer, options: Config['tracing']): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    if (UNTRACED.test(state.path)) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.scheme': (req.socket as TLSSocket).encrypted ? 'https' : 'http',
          'network.protocol.version': req.httpVersion,
        },
      },
      parent,
    );
    res.once('close', () => {
      const closedAt = Date.now();
      void finish(span, req, res, state, options, closedAt);
    });
    context.with(trace.setSpan(parent, span), next);
  };
}

async function finish(span: Span, req: IncomingMessage, res: ServerResponse, state: RequestState, options: Config['tracing'], closedAt: number): Promise<void> {
  const { exchange } = state;
  await exchange.done;
  const settled = exchange.outcome.settled;
  const final: LogFields = settled ? await settled.catch((): LogFields => ({})) : {};
  if (span.isRecording()) {
    const fields: LogFields = { ...exchange.outcome.log, ...final };
    const status = res.writableFinished || res.headersSent ? res.statusCode : 499; // 499: the client left first
    span.setAttributes({ 'http.response.status_code': status, ...gatewayAttributes(exchange, fields) });
    if (options.genAi) span.setAttributes(genAiAttributes(exchange, fields));
    if (state.operation) {
      span.setAttribute('http.route', state.operation.path);
      span.updateName(`${req.method} ${state.operation.path}`);
    }
    if (status >= 500) failedSpan(span, String(status));
  }
  span.end(closedAt);
}
