// The Anthropic protocol adapter: sends a Messages request to one route and hands back the
// response stream, or a normalised UpstreamError. It never sees customer keys.
import http from 'node:http';
import https from 'node:https';
import got, { type RequestError } from 'got';
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

// Keep-alive pools shared by every route: a connection per request would add a handshake to each.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 }),
};

const client = got.extend({
  retry: { limit: 0 }, // failover is the gateway's decision, per route
  throwHttpErrors: false,
  decompress: true,
  agent: agents,
  followRedirect: false,
});

function joinUrl(base: string, path: string): string {
  // Bases are given with or without /v1; the protocol's paths always carry it.
  const trimmed = base.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${trimmed}${path}`;
}

export function sendAnthropic(call: AnthropicCall): Promise<UpstreamResponse | UpstreamError> {
  const { provider } = call;
  if (!provider.baseUrl) return Promise.resolve(new UpstreamError('connect', true));
  const stream = client.stream.post(joinUrl(provider.baseUrl, call.path), {
    body: call.body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'anthropic-version': call.anthropicVersion,
      ...(call.anthropicBeta ? { 'anthropic-beta': call.anthropicBeta } : {}),
      'x-api-key': provider.credential() ?? '',
      'user-agent': 'ai-gateway',
    },
    timeout: { connect: provider.timeouts.connect_ms, response: provider.timeouts.first_byte_ms },
    signal: call.signal,
  });
  return new Promise((resolve) => {
    stream.once('response', (response: http.IncomingMessage) => {
      const upstreamRequestId = header(response.headers['request-id']);
      if (response.statusCode && response.statusCode >= 400) {
        collect(stream).then((text) =>
          resolve(new UpstreamError('status', FAILOVER_STATUSES.has(response.statusCode!), response.statusCode, text, upstreamRequestId)),
        );
        return;
      }
      resolve({ status: response.statusCode ?? 502, headers: response.headers, body: stream, upstreamRequestId });
    });
    stream.once('error', (error: RequestError) => {
      if (call.signal.aborted) return resolve(new UpstreamError('aborted', false));
      const timeout = error.code === 'ETIMEDOUT' || error.name === 'TimeoutError';
      resolve(new UpstreamError(timeout ? 'timeout' : 'connect', true));
    });
  });
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

async function collect(stream: NodeJS.ReadableStream, limit = 64 * 1024): Promise<string> {
  let text = '';
  try {
    for await (const chunk of stream) {
      text += chunk.toString();
      if (text.length > limit) break;
    }
  } catch {
    /* a broken error body is still an error */
  }
  return text.slice(0, limit);
}
