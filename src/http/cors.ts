// Cross-origin calls from browser pages (a web app or playground using the official SDKs with
// `dangerouslyAllowBrowser`): the public API answers CORS preflights and lets the allowed origins
// read its answers, streams included. Keys travel in headers, never in cookies, so no answer allows
// credentials, and a page can only call with a key its user gives it. The operators' surface
// (`/admin`, `/metrics`) never answers cross-origin.
import type { IncomingHttpHeaders } from 'node:http';
import type { CorsOrigins } from '../config/env.ts';

/**
 * `*` also exposes every header (request-id, retry-after, the rate-limit headers) to a request
 * without credentials, which is what the SDKs send.
 */
const ANY_ORIGIN: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*', 'access-control-expose-headers': '*' };

const VARY_ORIGIN: Readonly<Record<string, string>> = { vary: 'Origin' };

/** The operation name of a preflight in the access log and metrics (no request-log row). */
export const CORS_PREFLIGHT = 'cors_preflight';

/** Preflights may be cached this long (Chromium caps it at 2 hours). */
const MAX_AGE_SECONDS = '7200';

export interface Cors {
  /** Headers that let the request's origin read the answer (with a list of origins, at least `Vary: Origin`). */
  answerHeaders(headers: IncomingHttpHeaders): Readonly<Record<string, string>> | undefined;
  /**
   * The headers of a 204 for a preflight (OPTIONS with `Access-Control-Request-Method`) from an
   * allowed origin for a method the path serves (`served`, the path's methods); undefined
   * otherwise, and the request is answered as any OPTIONS is: 405 with Allow.
   */
  preflight(method: string | undefined, served: readonly string[], headers: IncomingHttpHeaders): Record<string, string> | undefined;
}

export function createCors(origins: CorsOrigins): Cors | undefined {
  if (origins !== '*' && origins.size === 0) return undefined;
  const anyOrigin = origins === '*';
  const allowedOrigin = (origin: string | undefined): string | undefined => {
    if (origin === undefined) return undefined;
    if (anyOrigin) return '*';
    return origins.has(origin) ? origin : undefined;
  };
  return {
    answerHeaders(headers) {
      const origin = allowedOrigin(headers.origin);
      if (anyOrigin) return origin ? ANY_ORIGIN : undefined;
      // Listed origins are answered by name: every answer varies by Origin, allowed or not.
      return origin ? { 'access-control-allow-origin': origin, 'access-control-expose-headers': '*', vary: 'Origin' } : VARY_ORIGIN;
    },
    preflight(method, served, headers) {
      const requested = headers['access-control-request-method'];
      if (method !== 'OPTIONS' || typeof requested !== 'string' || !served.includes(requested)) return undefined;
      const origin = allowedOrigin(headers.origin);
      if (!origin) return undefined;
      // Any request header may be sent: what the gateway does not read it forwards or ignores.
      const asked = headers['access-control-request-headers'];
      return {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': served.join(', '),
        ...(asked ? { 'access-control-allow-headers': asked } : {}),
        'access-control-max-age': MAX_AGE_SECONDS,
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      };
    },
  };
}
