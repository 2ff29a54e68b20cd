// What the simulated upstream refuses before answering, as api.anthropic.com does: a request
// without `anthropic-version`, and a body without the fields the API requires (`model`,
// `messages`, and `max_tokens` when creating a message). Unknown fields are not refused: the
// contract leaves Anthropic's bodies open (openapi/upstream/README.md, "Strictness").
import type http from 'node:http';

/**
 * The `error.type` of each HTTP status, from Anthropic's errors page (docs.claude.com/en/api/errors);
 * other 4xx answers are invalid_request_error and other 5xx api_error.
 */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export const errorType = (status: number): string => ERROR_TYPES[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error');

export const ROUTES: ReadonlySet<string> = new Set(['/v1/messages', '/v1/messages/count_tokens']);

/** The message of the 400 the API answers for this request, if it refuses it. */
export function refusal(path: string, headers: http.IncomingHttpHeaders, body: unknown): string | undefined {
  if (!headers['anthropic-version']) return 'anthropic-version: header is required';
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'Input should be a valid dictionary';
  const fields = body as Record<string, unknown>;
  const required = path === '/v1/messages' ? ['model', 'max_tokens', 'messages'] : ['model', 'messages'];
  const missing = required.find((name) => fields[name] === undefined);
  if (missing) return `${missing}: Field required`;
  if (typeof fields.model !== 'string') return 'model: Input should be a valid string';
  if (!Array.isArray(fields.messages)) return 'messages: Input should be a valid list';
  if (path === '/v1/messages' && !Number.isInteger(fields.max_tokens)) return 'max_tokens: Input should be a valid integer';
  return undefined;
}
