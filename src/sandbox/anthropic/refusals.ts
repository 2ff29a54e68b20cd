// What the simulated upstream refuses before answering, as api.anthropic.com does: a request
// without `anthropic-version`, and a body without the fields the API requires (`model`,
// `messages`, and `max_tokens` when creating a message). Unknown fields are not refused: the
// contract leaves Anthropic's bodies open (openapi/upstream/README.md, "Strictness").
import type http from 'node:http';

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
