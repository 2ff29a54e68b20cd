import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Every upstream failure, normalised. `retryable` says whether another route (or a retry) may help;
 * `status` is the upstream HTTP status when it answered with one.
 */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'connect' | 'timeout' | 'status' | 'aborted' | 'protocol',
    readonly retryable: boolean,
    readonly status?: number,
    /** The upstream's error body (Anthropic shape), when it sent one. Never shown verbatim to clients. */
    readonly body?: string,
    readonly upstreamRequestId?: string,
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
export const FAILOVER_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);
