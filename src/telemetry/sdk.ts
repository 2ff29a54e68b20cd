// OpenTelemetry's Node SDK, configured by the standard variables (OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG), OTEL_EXPORTER_OTLP_* endpoint, headers and
// protocol, OTEL_PROPAGATORS, OTEL_BSP_*), traces only: metrics stay Prometheus (/metrics) and logs
// stay JSON lines. No auto-instrumentation: its HTTP spans would carry provider hosts and URLs; the
// gateway makes its own (a server span per request, a client span per upstream call, a span per
// video submission and poll). Loaded only when tracing is on (tracing.ts).
import { context, diag, DiagLogLevel, SpanKind, trace, type Attributes, type SpanContext } from '@opentelemetry/api';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { packageVersion, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { failedSpan, genAiOperation } from './attributes.ts';
import type { CallLabels, CallSpan, TraceHooks } from './hooks.ts';
import { serverStep } from './server-span.ts';

export function startSdk(options: Config['tracing'], logger: Logger): { hooks: TraceHooks; shutdown(): Promise<void> } {
  // The SDK's own complaints (a collector that cannot be reached, a bad variable) go to the JSON
  // log; OTEL_LOG_LEVEL, when set, makes the SDK print them itself instead.
  if (!options.sdkLogLevel) diag.setLogger(diagToLog(logger), DiagLogLevel.WARN);
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (read by the SDK's env detector) override these.
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': 'ai-gateway', 'service.version': packageVersion() })),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const tracer = trace.getTracer('ai-gateway', packageVersion());

  function upstreamCall(labels: CallLabels, method: string): CallSpan {
    const operation = options.genAi ? genAiOperation(labels.group) : undefined;
    const attributes: Attributes = { 'http.request.method': method, 'server.address': labels.provider, 'gateway.provider': labels.provider };
    if (options.genAi) {
      attributes['gen_ai.provider.name'] = labels.provider;
      if (operation) attributes['gen_ai.operation.name'] = operation;
      if (labels.model) attributes['gen_ai.request.model'] = labels.model;
    }
    const name = operation && labels.model ? `${operation} ${labels.model}` : method;
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
    let ended = false;
    return {
      headers: options.contextToProviders ? traceContextHeaders(span.spanContext()) : undefined,
      answered(status) {
        span.setAttribute('http.response.status_code', status);
        if (status >= 400) failedSpan(span, String(status));
      },
      failed(kind, status) {
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        failedSpan(span, status === undefined ? kind : String(status));
      },
      end() {
        if (ended) return;
        ended = true;
        span.end();
      },
    };
  }

  async function videoTask<T>(kind: 'submit' | 'poll', labels: CallLabels, work: () => Promise<T>, result: (outcome: T) => Record<string, string>): Promise<T> {
    const attributes: Attributes = { 'gateway.provider': labels.provider, ...(labels.model ? { 'gateway.upstream_model': labels.model } : {}) };
    // A submission asks for content to be generated; a poll only reads its state.
    if (options.genAi && kind === 'submit') Object.assign(attributes, genAiVideo(labels));
    const span = tracer.startSpan(`video ${kind}`, { kind: SpanKind.INTERNAL, attributes });
    try {
      const outcome = await context.with(trace.setSpan(context.active(), span), work);
      span.setAttributes(result(outcome));
      return outcome;
    } catch (error) {
      failedSpan(span, error instanceof Error ? error.name : 'error');
      throw error;
    } finally {
      span.end();
    }
  }

  return {
    hooks: { serverStep: () => serverStep(tracer, options), upstreamCall, videoTask },
    shutdown: () => sdk.shutdown(),
  };
}

const genAiVideo = (labels: CallLabels): Attributes => ({
  'gen_ai.operation.name': 'generate_content',
  'gen_ai.provider.name': labels.provider,
  ...(labels.model ? { 'gen_ai.request.model': labels.model } : {}),
});

/** W3C Trace Context of a span: only traceparent and tracestate (never the client's baggage). */
function traceContextHeaders(spanContext: SpanContext): Record<string, string> {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const headers: Record<string, string> = { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
  const state = spanContext.traceState?.serialize();
  if (state) headers.tracestate = state;
  return headers;
}

function diagToLog(logger: Logger) {
  const say =
    (level: 'warn' | 'debug') =>
    (message: string, ...args: unknown[]) =>
      logger[level]({ source: 'opentelemetry', detail: args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ') || undefined }, message);
  return { error: say('warn'), warn: say('warn'), info: say('debug'), debug: say('debug'), verbose: say('debug') };
}
