// Google's error shape (AIP-193) for /v1beta/*, the Gemini API: `{"error": {"code", "message",
// "status", "details"}}` with the canonical code's name for the HTTP status. Two refusals are said
// in the words Gemini CLI acts on: a rate limit is 429 RESOURCE_EXHAUSTED with a RetryInfo detail
// (the CLI waits `retryDelay` and retries), and a balance or spend limit that does not cover the
// request (402 elsewhere) is 403 PERMISSION_DENIED with an ErrorInfo naming it: the CLI prints the
// message and stops, where a 429 would make it retry a refusal that waiting does not lift.
import type { Failure } from '../domain/failure.ts';

export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> };
}

/** google.rpc.Code names by HTTP status, as Google's front ends map them. */
const CANONICAL: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  417: 'FAILED_PRECONDITION',
  426: 'FAILED_PRECONDITION',
  429: 'RESOURCE_EXHAUSTED',
  431: 'INVALID_ARGUMENT',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const canonical = (status: number): string => CANONICAL[status] ?? (status >= 500 ? 'INTERNAL' : status >= 400 ? 'FAILED_PRECONDITION' : 'UNKNOWN');

/** The service's own domain in ErrorInfo details. */
const DOMAIN = 'gateway';

export function renderGoogle(failure: Failure, status: number, message: string): { status: number; body: GoogleErrorBody } {
  if (status === 402) {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INSUFFICIENT_BALANCE', domain: DOMAIN, metadata: { code: failure.code } }];
    return { status: 403, body: { error: { code: 403, message, status: 'PERMISSION_DENIED', details } } };
  }
  const wait = failure.details.headers?.['retry-after'];
  const details = status === 429 && wait && /^\d+$/.test(wait) ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}s` }] : undefined;
  return { status, body: { error: { code: status, message, status: canonical(status), ...(details ? { details } : {}) } } };
}
