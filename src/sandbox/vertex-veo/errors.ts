// Google's error envelopes, as the simulated Vertex AI and Cloud Storage answer them.
import type { JsonAnswer } from '../json-server.ts';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Vertex AI (AIP-193): `{"error": {"code", "message", "status"}}`. */
export const googleError = (code: number, message: string): JsonAnswer => ({
  status: code,
  body: { error: { code, message, status: STATUS[code] ?? 'UNKNOWN' } },
});

export const UNAUTHENTICATED = googleError(
  401,
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
);

/** The Cloud Storage JSON API: `{"error": {"code", "message", "errors": [{domain, reason, message, ...}]}}`. */
export const storageError = (code: number, reason: string, message: string, location?: string): JsonAnswer => ({
  status: code,
  body: {
    error: {
      code,
      message,
      errors: [{ message, domain: 'global', reason, ...(location ? { locationType: 'header', location } : {}) }],
    },
  },
});
