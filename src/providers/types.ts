import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ResolvedProvider } from '../catalogue/types.ts';

/**
 * Every upstream failure, normalised. `retryable` says whether another route (or a retry) may help;
 * `status` is the upstream HTTP status when it answered with one.
 */
export class UpstreamError extends Error {
  constructor(
    /** `egress`: the connection was refused by the egress guard (an internal address). */
    readonly kind: 'connect' | 'timeout' | 'status' | 'aborted' | 'protocol' | 'egress',
    readonly retryable: boolean,
    readonly status?: number,
    /** The upstream's error body, when it sent one. Logged, never shown verbatim to clients. */
    readonly body?: string,
    readonly upstreamRequestId?: string,
    /** Headers a client may act on (retry-after, rate-limit headers), as the upstream sent them. */
    readonly headers: Record<string, string> = {},
    /** The operating system's error of a connection that failed (ECONNREFUSED, ENOTFOUND...), for operators. */
    readonly osError?: string,
  ) {
    super(`upstream ${kind}${status ? ` ${status}` : ''}`);
  }
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  upstreamRequestId: string | undefined;
}

/** Statuses after which the next route may succeed where this one did not. */
export const FAILOVER_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 529]);

/** Upstream response headers a client may act on, passed on with 429/529 and other refusals. */
export const CLIENT_ACTIONABLE_HEADERS = /^(retry-after|retry-after-ms|x-should-retry|anthropic-ratelimit-.*|x-ratelimit-.*)$/;

/** How an attempt ended: `ok`, or the kind of its UpstreamError. */
export type AttemptOutcome = 'ok' | UpstreamError['kind'];

/** One attempt of an upstream call, as its hooks see it. */
export interface Attempt {
  readonly provider: ResolvedProvider;
  readonly method: string;
  /** The request's headers, still to be sent: a hook may add its own (a trace context). */
  readonly headers: Record<string, string>;
  /** The model name sent upstream, when the call is an inference. */
  readonly model?: string;
}

/**
 * Told of every attempt of every upstream call, on either client (call.ts). What `onAttempt`
 * returns (a start time, a span) comes back to `onResult`. `body`: the answer being relayed, when
 * there is one to follow (the attempt's work ends when it closes); absent when the answer was
 * read whole or none came.
 */
export interface CallHooks<Started = unknown> {
  onAttempt(attempt: Attempt): Started;
  onResult(attempt: Attempt, started: Started, outcome: AttemptOutcome, status: number | undefined, body?: Readable): void;
}
