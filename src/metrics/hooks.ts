// What the request path and background jobs tell the metrics, as narrow interfaces: the code that
// calls them imports no metrics library, and tests may pass nothing.

export interface RequestObservation {
  operation: string;
  /** The model the request named (clients may send anything: unknown ids are folded together). */
  model: string | null | undefined;
  status: number;
  durationMs: number;
  stream: boolean;
  /** From the request's arrival to the first body byte sent to the client, when one was sent. */
  firstByteMs: number | undefined;
}

export interface RequestMetrics {
  observeRequest(observation: RequestObservation): void;
}

export interface UpstreamMetrics {
  /** One upstream call: how long until it answered (or failed), and how it ended. */
  upstreamAttempt(provider: string, ms: number, outcome: 'ok' | 'connect' | 'timeout' | 'status' | 'aborted' | 'protocol' | 'egress', status?: number): void;
  /** The route of `provider` failed before any byte reached the client, and the next one is tried. */
  upstreamFailover(provider: string): void;
}

export interface SweepMetrics {
  swept(holds: number): void;
}

export interface KeyChangeMetrics {
  /** A notification that a key or customer changed arrived from the database. */
  keyChangeNotified(): void;
  /** The connection listening for those notifications is up (or just went down). */
  keyChangesListening(listening: boolean): void;
}

/** The API listener's connections (the METRICS_PORT listener is not counted). */
export interface ConnectionMetrics {
  connectionOpened(): void;
  connectionClosed(): void;
  /** Closed at accept: MAX_CONNECTIONS were open. */
  connectionRefused(): void;
  /** Closed because its request head did not complete within HTTP_HEADERS_TIMEOUT_MS. */
  headersTimedOut(): void;
}

/** The gateway's queue in front of video providers (src/domain/videos/dispatch.ts). */
export interface VideoQueueMetrics {
  /** A waiting task was sent to its provider (and accepted) after `waitedSeconds` in the gateway's queue. */
  videoDispatched(provider: string, waitedSeconds: number): void;
  /** The provider refused a submission for its account's concurrency: the task went (back) to the queue. */
  videoRequeued(provider: string): void;
}
