// JSON over HTTP for task-style upstreams (video): one request, one JSON answer, bearer auth, through
// the provider's got instance (task-client.ts: its timeouts, retries of polls, hooks).
import type { IncomingHttpHeaders } from 'node:http';
import { joinUrl } from './http.ts';
import type { ResolvedProvider } from '../catalogue/types.ts';
import { POLL_RETRY, taskClient, upstreamErrorOf } from './task-client.ts';
import { CLIENT_ACTIONABLE_HEADERS, FAILOVER_STATUSES, UpstreamError } from './types.ts';

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A task status is small: an answer past this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * `bearer`: a token the adapter obtained (a Vertex OAuth access token, a Kling JWT), sent instead
 * of the provider's credential. `idempotent`: a POST that only reads (Vertex's
 * fetchPredictOperation), retried like a poll. `headers`: more a provider needs (DashScope's
 * `X-DashScope-Async`).
 */
export interface CallOptions {
  bearer?: string;
  idempotent?: boolean;
  headers?: Record<string, string>;
}

export async function callJson(
  provider: ResolvedProvider,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<JsonAnswer | UpstreamError> {
  if (!provider.baseUrl) return new UpstreamError('connect', true);
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.bearer ?? provider.credential() ?? ''}`,
    accept: 'application/json',
    ...options.headers,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // No signal: a task call has no client to go away; only its own timeouts end it.
  const call = taskClient(provider)(joinUrl(provider.baseUrl, path), {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(method === 'GET' ? { retry: POLL_RETRY } : options.idempotent ? { retry: { ...POLL_RETRY, methods: [method] } } : {}),
    responseType: 'text',
  });
  // Returns the call itself (awaited below), for chaining.
  void call.on('downloadProgress', (progress: { transferred: number }) => {
    if (progress.transferred > MAX_ANSWER_BYTES) call.cancel();
  });
  let answer: { statusCode: number; body: string; headers: IncomingHttpHeaders };
  try {
    answer = await call;
  } catch (error) {
    return call.isCanceled ? new UpstreamError('protocol', true) : upstreamErrorOf(error);
  }
  const upstreamRequestId = first(answer.headers['request-id']) ?? first(answer.headers['x-request-id']);
  if (answer.statusCode >= 400) {
    // Refusals keep retry-after and rate-limit headers.
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (CLIENT_ACTIONABLE_HEADERS.test(name) && value !== undefined) kept[name] = String(first(value));
    return new UpstreamError('status', FAILOVER_STATUSES.has(answer.statusCode), answer.statusCode, answer.body.slice(0, 64 * 1024), upstreamRequestId, kept);
  }
  let parsed: Record<string, unknown> = {};
  try {
    parsed = answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {};
  } catch {
    return new UpstreamError('protocol', true, answer.statusCode, answer.body.slice(0, 2000));
  }
  return { status: answer.statusCode, body: parsed };
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
export const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
/** An id as upstreams send it: a string, or a number (some answer numeric task ids). */
export const asId = (value: unknown): string | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : asString(value));
