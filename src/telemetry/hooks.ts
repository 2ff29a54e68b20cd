// The seam between the gateway and OpenTelemetry tracing. Nothing here imports OpenTelemetry: the
// SDK is loaded (src/telemetry/tracing.ts, a dynamic import) only when tracing is on, and sets
// `traceHooks.current` (and the providers' `taskSpans.current`, src/providers/task-spans.ts). With
// tracing off both stay undefined: the HTTP app has no tracing step, the providers' call hooks are
// the metrics' alone, and the video adapters read one property; no span object is made and no
// context is carried.
//
// A module-level seam rather than a dependency handed down: tracing is one per process, as the
// OpenTelemetry SDK is. Upstream calls are traced through the providers' own call hooks
// (src/providers/call.ts: gateway.ts gives them `calls` when tracing is on), the one place every
// attempt on either client is told of.
import type { RequestHandler } from 'express';
import type { CallHooks, CallLabels, TaskSpans } from '../providers/index.ts';

export type { CallLabels };

export interface TraceHooks extends TaskSpans {
  /** The Express step that opens each request's server span (right after the request id). */
  serverStep(): RequestHandler;
  /**
   * A client span per attempt of every upstream call, child of the span in the current context,
   * ended when its answer was read (or the call failed); `traceparent` added to the attempt's
   * headers only with TRACE_CONTEXT_TO_PROVIDERS.
   */
  calls: CallHooks<unknown>;
}

export const traceHooks: { current?: TraceHooks } = {};
