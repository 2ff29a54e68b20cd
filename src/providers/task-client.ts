// The client of the task providers (video): one got instance per enabled provider, built from its
// catalogue entry when the catalogue is resolved. Its timeouts are the provider's; it retries only
// idempotent polls (GET), briefly, since the poller has its own backoff; its hooks tell the
// provider's call hooks of every attempt (call.ts: the upstream metrics), keep connections off
// internal addresses (egress-guard.ts) and strip errors of anything a log or a customer must not
// see (URLs, hosts, our credential).
//
// The text protocols (messages, chat) stay on undici's pools in http.ts: measured faster on that
// path (scripts/bench/clients.ts, docs/performance.md).
import http from 'node:http';
import https from 'node:https';
import got, { type Agents, type Got, type Request, type RequestError } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import type { ResolvedProvider } from '../catalogue/types.ts';
import type { Logger } from '../logger.ts';
import { proxyFor } from '../shared/egress-proxy.ts';
import { hooksOf } from './call.ts';
import { atProviderOrigin, EgressRefusedError, guardedLookup, refusedLiteral, refusedName } from './egress-guard.ts';
import { sanitizeForLog } from './sanitize.ts';
import { UpstreamError, type Attempt } from './types.ts';

/** Polls only: a status read is idempotent. Short, so the poller's own backoff stays in charge. */
export const POLL_RETRY = {
  limit: 2,
  methods: ['GET' as const],
  statusCodes: [408, 429, 500, 502, 503, 504, 529],
  backoffLimit: 1_000,
  maxRetryAfter: 2_000, // a longer retry-after is the poller's to honour, not ours to sleep on
};

/** A failure as it leaves the client: its code and a message with no URL, host or secret in it. */
export class TaskCallError extends Error {
  override readonly name = 'TaskCallError';
  constructor(
    readonly code: string,
    message: string,
    /** Set when the egress guard refused the connection. */
    readonly egress?: EgressRefusedError,
  ) {
    super(message);
  }
}

// The agents of each forward proxy, shared by every provider's instance (hpagent, got's documented
// proxy agents: a CONNECT tunnel for every URL, so a refusal is a failed connection).
const proxyAgents = new Map<string, Agents>();
function agentsThrough(proxy: URL): Agents {
  let agents = proxyAgents.get(proxy.href);
  if (!agents) {
    const options = { keepAlive: true, timeout: 30_000, proxy: proxy.href };
    proxyAgents.set(proxy.href, (agents = { http: new HttpProxyAgent(options), https: new HttpsProxyAgent(options) }));
  }
  return agents;
}

const clients = new WeakMap<ResolvedProvider, Got>();

/** The provider's got instance (one per resolved provider: a catalogue reload makes new ones). */
export function taskClient(provider: ResolvedProvider): Got {
  let client = clients.get(provider);
  if (!client) clients.set(provider, (client = createTaskClient(provider)));
  return client;
}

/** Each attempt as its hooks saw it, by the options got hands every hook of the attempt. */
const attempts = new WeakMap<object, { attempt: Attempt; started: unknown }>();

/**
 * A streamed call (the download) through the provider's instance. got runs no afterResponse hook
 * for streams, so its answer is reported here, with the body to follow; failures are reported by
 * the beforeError hook.
 */
export function taskStream(provider: ResolvedProvider, url: URL, options: { headers: Record<string, string>; signal: AbortSignal }): Request {
  const stream = taskClient(provider).stream(url, options);
  stream.once('response', (response: { statusCode: number; ok: boolean }) => {
    const seen = attempts.get(stream.options);
    if (seen) hooksOf(provider).onResult(seen.attempt, seen.started, response.ok ? 'ok' : 'status', response.statusCode, stream);
  });
  return stream;
}

/** Builds the provider's instance, its refusals of internal addresses logged (resolveProviders does, for each video provider). */
export function attachTaskClient(provider: ResolvedProvider, logger?: Logger): void {
  clients.set(provider, createTaskClient(provider, logger));
}

export function createTaskClient(provider: ResolvedProvider, logger?: Logger): Got {
  const { timeouts } = provider;
  const hooks = () => hooksOf(provider); // read at each attempt: the registry observes a provider after building it
  const begin = (options: { method: string; headers: object }) => {
    const attempt: Attempt = { provider, method: options.method, headers: options.headers as Record<string, string> };
    const seen = { attempt, started: hooks().onAttempt(attempt) };
    attempts.set(options, seen);
    return seen;
  };
  return got.extend({
    // Idle pooled connections close after 30 s: a catalogue reload replaces the instance, and its
    // old pool must not keep sockets open until each provider closes them.
    agent: { http: new http.Agent({ keepAlive: true, timeout: 30_000 }), https: new https.Agent({ keepAlive: true, timeout: 30_000 }) },
    timeout: { connect: timeouts.connect_ms, secureConnect: timeouts.connect_ms, response: timeouts.first_byte_ms, socket: timeouts.idle_ms },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false, // a 3xx is handed back as an answer, never followed to wherever it points
    decompress: false,
    hooks: {
      beforeRequest: [
        async (options) => {
          begin(options);
          const url = options.url instanceof URL ? options.url : new URL(String(options.url));
          const proxy = proxyFor(provider.egressProxy, url);
          if (proxy) options.agent = agentsThrough(proxy);
          // Anything but the provider's own origin goes through the egress guard: literals now,
          // names at connect time; through a proxy (which resolves the name itself) names now too.
          if (atProviderOrigin(url, provider.baseUrl)) return;
          const refusal = refusedLiteral(url) ?? (proxy ? await refusedName(url.hostname) : undefined);
          if (refusal) throw refusal;
          options.dnsLookup = guardedLookup;
        },
      ],
      afterResponse: [
        (response) => {
          const seen = attempts.get(response.request.options);
          if (seen) hooks().onResult(seen.attempt, seen.started, response.ok ? 'ok' : 'status', response.statusCode);
          return response;
        },
      ],
      beforeError: [
        (error: RequestError) => {
          const seen = error.options ? (attempts.get(error.options) ?? begin(error.options)) : undefined;
          const egress = egressRefusal(error);
          const outcome = egress ? 'egress' : error.name === 'TimeoutError' ? 'timeout' : error.code === 'ERR_ABORTED' ? 'aborted' : 'connect';
          if (seen && !error.response) hooks().onResult(seen.attempt, seen.started, outcome, undefined);
          if (egress)
            logger?.warn({ provider: provider.id, address_class: egress.addressClass }, 'upstream call refused: the URL leads into an internal network');
          // A fresh error: got's own carries the request options (our credential among the headers).
          return new TaskCallError(error.name === 'TimeoutError' ? 'ETIMEDOUT' : error.code, sanitizeForLog(error.message) ?? '', egress);
        },
      ],
    },
  });
}

function egressRefusal(error: Error): EgressRefusedError | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) if (cause instanceof EgressRefusedError) return cause;
  return undefined;
}

/** A failed call as the normalised UpstreamError (what a retry may help with, nothing of the error's text). */
export function upstreamErrorOf(error: unknown): UpstreamError {
  const code = (error as { code?: string }).code ?? '';
  if (error instanceof TaskCallError && error.egress) return new UpstreamError('egress', false);
  if (code === 'ERR_ABORTED') return new UpstreamError('aborted', false);
  if (code === 'ETIMEDOUT') return new UpstreamError('timeout', true);
  return new UpstreamError('connect', true);
}
