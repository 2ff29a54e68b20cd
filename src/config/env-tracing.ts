// The variables of OpenTelemetry tracing (src/telemetry/), a part of ENV_SCHEMA (env.ts): the
// standard OTEL_* ones the gateway itself reads to decide whether tracing is on and what it
// records (the SDK reads the rest: service name, resource attributes, sampler, headers), and the
// gateway's own TRACE_CONTEXT_TO_PROVIDERS.
import { str } from 'envalid';
import { flag } from './validators.ts';

export const TRACING_ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: str({
    default: undefined,
    desc: 'OpenTelemetry traces go to this OTLP/HTTP collector (`http://collector:4318`); with it, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` set, tracing is on, configured by the standard `OTEL_*` variables (service name, resource attributes, sampler, headers, protocol: docs/operations.md). Unset: off, and nothing of it runs.',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: str({
    default: undefined,
    desc: 'The OTLP/HTTP URL of traces alone (`http://collector:4318/v1/traces`); turns tracing on too.',
  }),
  OTEL_TRACES_EXPORTER: str({ default: undefined, desc: '`otlp` (the default once tracing is on), `console`, `zipkin`; `none` turns tracing off.' }),
  OTEL_SDK_DISABLED: flag({ default: false, desc: '`true` turns tracing off whatever else is set.' }),
  OTEL_SEMCONV_STABILITY_OPT_IN: str({
    default: undefined,
    desc: "`gen_ai_latest_experimental`: spans carry the GenAI semantic-convention attributes (operation, models, provider, tokens as billed); otherwise only the HTTP ones and the gateway's ids.",
  }),
  OTEL_LOG_LEVEL: str({
    default: undefined,
    desc: "The OpenTelemetry SDK's own diagnostics (`debug`, `info`, `warn`, `error`), printed by the SDK; unset: its warnings (a collector out of reach) go to the JSON log.",
  }),
  TRACE_CONTEXT_TO_PROVIDERS: flag({
    default: false,
    desc: "Send `traceparent` (and `tracestate`) on provider calls, so a provider that traces joins the trace. Off by default: a provider learns no trace id of ours (or a client's).",
  }),
};
