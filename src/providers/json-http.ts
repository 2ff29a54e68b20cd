// JSON over HTTP for task-style upstreams (video): one request, one JSON answer, bearer auth, over
// the same undici keep-alive pools as the text protocols (one HTTP client for every upstream).
import { callUpstream, collect, joinUrl } from './http.ts';
import type { ResolvedProvider } from './registry.ts';
import { UpstreamError } from './types.ts';

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A task status is small: an answer past this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export async function callJson(
  provider: ResolvedProvider,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<JsonAnswer | UpstreamError> {
  if (!provider.baseUrl) return new UpstreamError('connect', true);
  const headers: Record<string, string> = { authorization: `Bearer ${provider.credential() ?? ''}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const answer = await callUpstream({
    url: joinUrl(provider.baseUrl, path),
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    // No signal: a task call has no client to go away; only its own timeouts end it.
    connectMs: provider.timeouts.connect_ms,
    firstByteMs: provider.timeouts.first_byte_ms,
    idleMs: provider.timeouts.idle_ms,
  });
  if (answer instanceof UpstreamError) return answer; // refusals keep retry-after and rate-limit headers
  const text = await collect(answer.body, MAX_ANSWER_BYTES + 1);
  let parsed: Record<string, unknown> = {};
  try {
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new Error('too large');
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return new UpstreamError('protocol', true, answer.status, text.slice(0, 2000));
  }
  return { status: answer.status, body: parsed };
}

export const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
export const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
/** An id as upstreams send it: a string, or a number (some answer numeric task ids). */
export const asId = (value: unknown): string | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : asString(value));
