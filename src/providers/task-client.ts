// The client of the task providers (video): one got instance per enabled provider, built from its
// catalogue entry when the catalogue is resolved. Its timeouts are the provider's; it retries only
// idempotent polls (GET), briefly, since the poller has its own backoff; its hooks count every
// call in the upstream metrics, keep connections off internal addresses (egress-guard.ts) and
// strip errors of anything a log or a customer must not see (URLs, hosts, our credential).
//
// The text protocols (messages, chat) stay on undici's pools in http.ts: measured faster on that
// path (scripts/bench/clients.ts, docs/performance.md).
import http from 'node:http';
import https from 'node:https';
import got, { type Agents, type Got, type NormalizedOptions, type Request, type RequestError } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import type { Logger } from '../logger.ts';
import type { UpstreamMetrics } from '../metrics/hooks.ts';
import { proxyFor } from '../shared/egress-proxy.ts';
import { traceHooks, type CallSpan, type TraceHooks } from '../telemetry/hooks.ts';
import { atProviderOrigin, EgressRefusedError, guardedLookup, refusedLiteral, refusedName } from './egress-guard.ts';
import type { ResolvedProvider } from './registry.ts';
import { sanitizeForLog } from './sanitize.ts';
import { UpstreamError } from './types.ts';

/** Who hears about task calls: both optional (unit tests build providers without them). */
export interface TaskCallObserver {
  metrics?: Pick<UpstreamMetrics, 'upstreamAttempt'>;
  logger?: Logger;
}

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

const clients = new WeakMap<ResolvedProvider, { client: Got; observer: TaskCallObserver }>();

function entryOf(provider: ResolvedProvider): { client: Got; observer: TaskCallObserver } {
  let entry = clients.get(provider);
  if (!entry) clients.set(provider, (entry = { client: createTaskClient(provider), observer: {} }));
  return entry;
}

/** The provider's got instance (one per resolved provider: a catalogue reload makes new ones). */
export function taskClient(provider: ResolvedProvider): Got {
  return entryOf(provider).client;
}

/**
 * A streamed call (the download) through the provider's instance. got runs no afterResponse hook
 * for streams, so its answer is counted here; failures are counted by the beforeError hook.
 */
export function taskStream(provider: ResolvedProvider, url: URL, options: { headers: Record<string, string>; signal: AbortSignal }): Request {
  const { client, observer } = entryOf(provider);
  const began = performance.now();
  const stream = client.stream(url, options);
  stream.once('response', (response: { statusCode: number; ok: boolean }) => {
    observer.metrics?.upstreamAttempt(provider.id, performance.now() - began, response.ok ? 'ok' : 'status', response.statusCode);
    const span = callSpans.get(stream.options);
    if (!span) return;
    span.answered(response.statusCode);
    // A download's span lasts until its last byte, or until it is cut.
    const end = () => span.end();
    stream.once('end', end).once('close', end);
  });
  return stream;
}

/** Each attempt's client span (tracing on), by the options got hands every hook. */
const callSpans = new WeakMap<object, CallSpan>();

/** Opens an attempt's span and adds the trace context headers it carries (when TRACE_CONTEXT_TO_PROVIDERS is on). */
function openCallSpan(hooks: TraceHooks, provider: ResolvedProvider, options: NormalizedOptions): void {
  callSpans.get(options)?.end(); // a retry: the last attempt's span is over
  const span = hooks.upstreamCall({ provider: provider.id }, options.method);
  if (span.headers) Object.assign(options.headers, span.headers);
  callSpans.set(options, span);
}

/** Builds the provider's instance with its observer (resolveProviders does, for each video provider). */
export function attachTaskClient(provider: ResolvedProvider, observer: TaskCallObserver): void {
  clients.set(provider, { client: createTaskClient(provider, observer), observer });
}

export function createTaskClient(provider: ResolvedProvider, observer: TaskCallObserver = {}): Got {
  const { timeouts } = provider;
  const began = new WeakMap<object, number>(); // when each attempt started, by its options
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
          began.set(options, performance.now());
          const hooks = traceHooks.current;
          if (hooks) openCallSpan(hooks, provider, options);
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
          const since = began.get(response.request.options);
          observer.metrics?.upstreamAttempt(
            provider.id,
            since === undefined ? 0 : performance.now() - since,
            response.ok ? 'ok' : 'status',
            response.statusCode,
          );
          const span = callSpans.get(response.request.options);
          if (span && !response.request.options.isStream) {
            span.answered(response.statusCode);
            span.end();
          }
          return response;
        },
      ],
      beforeError: [
        (error: RequestError) => {
          const since = error.options ? began.get(error.options) : undefined;
          const egress = egressRefusal(error);
          const outcome = egress ? 'egress' : error.name === 'TimeoutError' ? 'timeout' : error.code === 'ERR_ABORTED' ? 'aborted' : 'connect';
          if (!error.response) observer.metrics?.upstreamAttempt(provider.id, since === undefined ? 0 : performance.now() - since, outcome);
          const span = error.options ? callSpans.get(error.options) : undefined;
          span?.failed(outcome, error.response?.statusCode);
          span?.end();
          if (egress)
            observer.logger?.warn(
              { provider: provider.id, address_class: egress.addressClass },
              'upstream call refused: the URL leads into an internal network',
            );
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
