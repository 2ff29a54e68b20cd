// JSON over HTTP for task-style upstreams (video): one request, one JSON answer, bearer auth.
import got, { type RequestError } from 'got';
import type { ResolvedProvider } from './registry.ts';
import { CLIENT_ACTIONABLE_HEADERS, FAILOVER_STATUSES, UpstreamError } from './types.ts';

const client = got.extend({ retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false });

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

export async function callJson(
  provider: ResolvedProvider,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<JsonAnswer | UpstreamError> {
  if (!provider.baseUrl) return new UpstreamError('connect', true);
  try {
    const response = await client(`${provider.baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${provider.credential() ?? ''}`, accept: 'application/json' },
      ...(body === undefined ? {} : { json: body }),
      timeout: { connect: provider.timeouts.connect_ms, response: provider.timeouts.first_byte_ms },
    });
    if (response.statusCode >= 400) {
      // retry-after and rate-limit headers reach the client with a refusal it may act on.
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers))
        if (CLIENT_ACTIONABLE_HEADERS.test(name) && value !== undefined) headers[name] = String(Array.isArray(value) ? value[0] : value);
      return new UpstreamError('status', FAILOVER_STATUSES.has(response.statusCode), response.statusCode, response.body.slice(0, 2000), undefined, headers);
    }
    let parsed: Record<string, unknown> = {};
    try {
      parsed = response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
    } catch {
      return new UpstreamError('protocol', true, response.statusCode, response.body.slice(0, 2000));
    }
    return { status: response.statusCode, body: parsed };
  } catch (error) {
    const timeout = (error as RequestError).code === 'ETIMEDOUT';
    return new UpstreamError(timeout ? 'timeout' : 'connect', true);
  }
}

export const asString = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
export const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
/** An id as upstreams send it: a string, or a number (some answer numeric task ids). */
export const asId = (value: unknown): string | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : asString(value));
