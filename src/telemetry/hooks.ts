// The seam between the gateway and OpenTelemetry tracing. Nothing here imports OpenTelemetry: the
// SDK is loaded (src/telemetry/tracing.ts, a dynamic import) only when tracing is on, and sets
// `traceHooks.current`. With tracing off it stays undefined: the HTTP app has no tracing step, and
// an upstream call costs one property read; no span object is made and no context is carried.
//
// A module-level seam rather than a dependency handed down: the two upstream clients
// (src/providers/http.ts, task-client.ts) are module functions with many callers, and tracing is
// one per process, as the OpenTelemetry SDK is.
import type { RequestHandler } from 'express';
import type { ModelGroup } from '../catalogue/types.ts';

/** What an upstream call says about itself on its span; never a URL, a host or a credential. */
export interface CallLabels {
  /** The catalogue's provider id (the span's `server.address` and `gen_ai.provider.name`). */
  provider: string;
  /** The model name sent upstream. */
  model?: string;
  /** The endpoint group the call serves, when it is an inference (its `gen_ai.operation.name`). */
  group?: ModelGroup;
}

/** One upstream call's client span. */
export interface CallSpan {
  /** To add to the call's headers: `traceparent` (and `tracestate`) when TRACE_CONTEXT_TO_PROVIDERS is on. */
  readonly headers: Record<string, string> | undefined;
  /** The provider answered with this status (the span ends with `end`, once the body is read). */
  answered(status: number): void;
  /** The call failed: how (`timeout`, `connect`, `status`...), and the status if there was one. */
  failed(kind: string, status?: number): void;
  /** Ends the span; later calls do nothing. */
  end(): void;
}

export interface TraceHooks {
  /** The Express step that opens each request's server span (right after the request id). */
  serverStep(): RequestHandler;
  /** A client span for an upstream call, child of the span in the current context. */
  upstreamCall(labels: CallLabels, method: string): CallSpan;
  /**
   * A span around a video task's submission or poll: its upstream calls are its children; `result`
   * names what came of it (an attribute per entry).
   */
  videoTask<T>(kind: 'submit' | 'poll', labels: CallLabels, work: () => Promise<T>, result: (outcome: T) => Record<string, string>): Promise<T>;
}

export const traceHooks: { current?: TraceHooks } = {};
