import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

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
