// Kling's refusals in the gateway's terms. Every error answer is {code, message, request_id},
// with the HTTP status of Kling's error-code table; the code decides, since one status covers
// different things (429 is the request rate, the account's concurrency, arrears and an IP
// whitelist alike).
import { asRecord } from '../json-http.ts';
import { UpstreamError } from '../types.ts';

/** The account runs as many tasks as its resource pack allows (shared by every key of the account). */
export const CONCURRENCY_FULL = 1303;
/** Account exception, arrears (postpaid), resource pack depleted or expired (prepaid), IP whitelist. */
const ACCOUNT_PROBLEMS = new Set([1100, 1101, 1102, 1304]);
/** An invalid method or a resource (model, path) Kling does not know: the gateway's configuration, not the caller's request. */
const OUR_MISTAKES = new Set([1202, 1203]);
/** Not yet valid, expired: a token signed by a clock apart from Kling's. */
export const TOKEN_TIME_REFUSALS = new Set([1003, 1004]);

/** HTTP status by code, for an error answered with another status (a 200 with a non-zero code). */
const STATUS_OF: Array<[number, number, number]> = [
  [1000, 1099, 401],
  [1100, 1102, 429],
  [1103, 1103, 403],
  [1200, 1201, 400],
  [1202, 1203, 404],
  [1300, 1301, 400],
  [1302, 1304, 429],
  [5000, 5000, 500],
  [5001, 5001, 503],
  [5002, 5002, 504],
];

/** Kling's code and request id from an error body, when it is one. */
export function klingErrorOf(body: string | undefined): { code: number; message: string; requestId: string | undefined } | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = asRecord(JSON.parse(body ?? ''));
  } catch {
    return undefined;
  }
  if (typeof parsed.code !== 'number' || parsed.code === 0) return undefined;
  return {
    code: parsed.code,
    message: typeof parsed.message === 'string' ? parsed.message : '',
    requestId: typeof parsed.request_id === 'string' ? parsed.request_id : undefined,
  };
}

/** An answer with a non-zero code, whatever its HTTP status, as the UpstreamError its code means. */
export function codeError(status: number, body: Record<string, unknown>): UpstreamError {
  const code = typeof body.code === 'number' ? body.code : 0;
  const mapped = status >= 400 ? status : (STATUS_OF.find(([from, to]) => code >= from && code <= to)?.[2] ?? 502);
  return new UpstreamError('status', mapped === 429 || mapped >= 500, mapped, JSON.stringify(body));
}

/**
 * A refused create, mapped: account concurrency full is a 429 in the OpenAI error shape with the
 * code `provider_concurrency` (the fair queue takes the task back); the provider account's own
 * trouble (arrears, an exhausted pack, a whitelist) is a 503 whose text no customer sees; a model
 * or path Kling does not know is a 502, the gateway's mistake; everything else keeps its status
 * (401/403 are shown as the gateway's own message, 400s name what Kling refused, 429 is the rate).
 */
export function mapCreateRefusal(error: UpstreamError): UpstreamError {
  const kling = klingErrorOf(error.body);
  if (!kling) return error;
  if (kling.code === CONCURRENCY_FULL) {
    const body = {
      error: {
        message: 'The provider account is running as many tasks as it allows; retry later. Nothing was charged.',
        type: 'rate_limit_error',
        code: 'provider_concurrency',
      },
    };
    return new UpstreamError('status', true, 429, JSON.stringify(body), kling.requestId, error.headers);
  }
  if (ACCOUNT_PROBLEMS.has(kling.code)) return new UpstreamError('status', false, 503, error.body, kling.requestId);
  if (OUR_MISTAKES.has(kling.code)) return new UpstreamError('status', false, 502, error.body, kling.requestId);
  return new UpstreamError(error.kind, error.retryable, error.status, error.body, kling.requestId ?? error.upstreamRequestId, error.headers);
}
