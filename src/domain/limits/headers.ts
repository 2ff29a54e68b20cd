// A key's limits as the client sees them: the protocol's rate-limit headers on every answer of a
// key with a rate limit, and refusals with `retry-after`. Anthropic's reset is an RFC 3339 time,
// OpenAI's a duration ("1s", "6m0s"); both mean "the window is full again", so with a sliding
// 60 s window it is when the newest request leaves it.
import { Failure } from '../failure.ts';
import type { KeyLimitRefusal, RateState } from '../../ledger/index.ts';

/** Which family of headers an endpoint speaks: its error shape's. */
export type HeaderStyle = 'anthropic' | 'openai';

const duration = (seconds: number): string => (seconds >= 60 ? `${Math.floor(seconds / 60)}m${seconds % 60}s` : `${seconds}s`);

export function rateLimitHeaders(style: HeaderStyle, rate: RateState | null | undefined): Record<string, string> {
  if (!rate) return {};
  if (style === 'anthropic') {
    return {
      'anthropic-ratelimit-requests-limit': String(rate.limit),
      'anthropic-ratelimit-requests-remaining': String(rate.remaining),
      'anthropic-ratelimit-requests-reset': rate.resetAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
  }
  return {
    'x-ratelimit-limit-requests': String(rate.limit),
    'x-ratelimit-remaining-requests': String(rate.remaining),
    'x-ratelimit-reset-requests': duration(rate.resetSeconds),
  };
}

/** A refusal by one of the key's limits: 429 with retry-after (rate, concurrency) or 402 (spend). */
export function keyLimitFailure(refusal: KeyLimitRefusal, style: HeaderStyle): Failure {
  const headers = {
    ...rateLimitHeaders(style, refusal.rate),
    ...(refusal.retryAfterSeconds !== null ? { 'retry-after': String(refusal.retryAfterSeconds) } : {}),
  };
  return new Failure(refusal.code, refusal.message, { param: null, headers });
}

/** The same failure carrying the key's rate-limit headers too (an upstream error after the reservation). */
export function withRateHeaders(failure: Failure, style: HeaderStyle, rate: RateState | null | undefined): Failure {
  if (!rate) return failure;
  return new Failure(failure.code, failure.message, { ...failure.details, headers: { ...rateLimitHeaders(style, rate), ...failure.details.headers } });
}
