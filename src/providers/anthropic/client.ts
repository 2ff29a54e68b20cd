// The Anthropic protocol adapter: sends a Messages request to one route and hands back the
// response stream, or a normalised UpstreamError. It never sees customer keys.
//
// undici rather than got on this path: the benchmark's profile put got's option handling and
// stream wrapping at about 1 ms of each request at concurrency 1 (undici: about 0.1 ms), and
// undici's own figures put got at a third of `undici.request` throughput (scripts/bench, README).
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, errors, request, type Dispatcher } from 'undici';
import type { ResolvedProvider } from '../registry.ts';
import { FAILOVER_STATUSES, UpstreamError, type UpstreamResponse } from '../types.ts';

export interface AnthropicCall {
  provider: ResolvedProvider;
  path: '/v1/messages' | '/v1/messages/count_tokens';
  body: string;
  anthropicVersion: string;
  anthropicBeta: string | undefined;
  signal: AbortSignal;
}

// Keep-alive pools shared by every route, one per connect timeout (undici sets it per agent). No
// cap on connections per origin: each open stream needs its own HTTP/1.1 connection.
const agents = new Map<number, Agent>();
function agentFor(connectMs: number): Agent {
  let agent = agents.get(connectMs);
  if (!agent) agents.set(connectMs, (agent = new Agent({ connect: { timeout: connectMs }, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 })));
  return agent;
}

const joined = new Map<string, string>();
function joinUrl(base: string, path: string): string {
  // Bases are given with or without /v1; the protocol's paths always carry it.
  const key = `${base} ${path}`;
  let url = joined.get(key);
  if (url === undefined) joined.set(key, (url = `${base.replace(/\/+$/, '').replace(/\/v1$/, '')}${path}`));
  return url;
}

export async function sendAnthropic(call: AnthropicCall): Promise<UpstreamResponse | UpstreamError> {
  const { provider } = call;
  if (!provider.baseUrl) return new UpstreamError('connect', true);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'anthropic-version': call.anthropicVersion,
    'x-api-key': provider.credential() ?? '',
    'user-agent': 'ai-gateway',
  };
  if (call.anthropicBeta) headers['anthropic-beta'] = call.anthropicBeta;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(joinUrl(provider.baseUrl, call.path), {
      method: 'POST',
      body: call.body,
      headers,
      signal: call.signal,
      dispatcher: agentFor(provider.timeouts.connect_ms),
      headersTimeout: provider.timeouts.first_byte_ms,
      // A body that stalls this long errors its stream; the SSE relay also has its own idle timer.
      bodyTimeout: provider.timeouts.idle_ms,
    });
  } catch (error) {
    if (call.signal.aborted) return new UpstreamError('aborted', false);
    const timeout = error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError;
    return new UpstreamError(timeout ? 'timeout' : 'connect', true);
  }
  const responseHeaders = response.headers as IncomingHttpHeaders;
  const upstreamRequestId = header(responseHeaders['request-id']);
  if (response.statusCode >= 400) {
    const text = await collect(response.body);
    return new UpstreamError('status', FAILOVER_STATUSES.has(response.statusCode), response.statusCode, text, upstreamRequestId);
  }
  return { status: response.statusCode, headers: responseHeaders, body: response.body, upstreamRequestId };
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

async function collect(stream: NodeJS.ReadableStream & { destroy(): void }, limit = 64 * 1024): Promise<string> {
  let text = '';
  try {
    for await (const chunk of stream) {
      text += chunk.toString();
      if (text.length > limit) break;
    }
  } catch {
    /* a broken error body is still an error */
  } finally {
    stream.destroy();
  }
  return text.slice(0, limit);
}
