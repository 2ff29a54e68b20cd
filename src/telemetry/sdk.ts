// OpenTelemetry's Node SDK, configured by the standard variables (OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG), OTEL_EXPORTER_OTLP_* endpoint, headers and
// protocol, OTEL_PROPAGATORS, OTEL_BSP_*), traces only: metrics stay Prometheus (/metrics) and logs
// stay JSON lines. No auto-instrumentation: its HTTP spans would carry provider hosts and URLs; the
// gateway makes its own (a server span per request, a client span per upstream call, a span per
// video submission and poll). Loaded only when tracing is on (tracing.ts).
import { context, diag, DiagLogLevel, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { packageVersion, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { CallHooks } from '../providers/index.ts';
import { failedSpan } from './attributes.ts';
import { callSpans } from './call-spans.ts';
import type { CallLabels, TraceHooks } from './hooks.ts';
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
    hooks: { serverStep: () => serverStep(tracer, options), calls: callSpans(tracer, options) as CallHooks<unknown>, videoTask },
    shutdown: () => sdk.shutdown(),
  };
}

const genAiVideo = (labels: CallLabels): Attributes => ({
  'gen_ai.operation.name': 'generate_content',
  'gen_ai.provider.name': labels.provider,
  ...(labels.model ? { 'gen_ai.request.model': labels.model } : {}),
});

function diagToLog(logger: Logger) {
  const say =
    (level: 'warn' | 'debug') =>
    (message: string, ...args: unknown[]) =>
      logger[level]({ source: 'opentelemetry', detail: args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ') || undefined }, message);
  return { error: say('warn'), warn: say('warn'), info: say('debug'), debug: say('debug'), verbose: say('debug') };
}
