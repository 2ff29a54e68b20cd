// One HTTP exchange with an upstream over undici keep-alive pools: the response stream, or a
// normalised UpstreamError, with the provider's call hooks told of the attempt (call.ts builds the
// call; nothing else calls this). The first-byte timeout is our own timer, so it fires when
// configured (undici's timers are coarse); idle gaps after that are the relay's to police.
//
// undici rather than got on the relay (messages, chat): `npm run bench:clients` measured got at
// 2.4-4.2x undici's CPU per request and 0.30x its c=50 throughput on this path
// (docs/performance.md). The task providers (video) use got: task-client.ts.
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { CLIENT_ACTIONABLE_HEADERS, FAILOVER_STATUSES, UpstreamError, type Attempt, type CallHooks, type UpstreamResponse } from './types.ts';

export interface UpstreamCall extends Attempt {
  url: string;
  method: 'POST' | 'GET' | 'DELETE';
  body?: string | Buffer;
  /** The caller's aborts (client gone, shutdown): any of them ends the call; task calls have none. */
  signal?: AbortSignal;
  /** A second abort beside the client's: the process's, cutting open requests at shutdown. */
  also?: AbortSignal;
  connectMs: number;
  /** The forward proxy to go through (the provider's, from HTTPS_PROXY/HTTP_PROXY/NO_PROXY); undefined: direct. */
  proxy?: URL;
  firstByteMs: number;
  /** A stalled body errors after this long without bytes. */
  idleMs: number;
  /** Header carrying the upstream's request id. */
  requestIdHeader?: string;
  /** More headers of an error answer to keep (beyond retry-after and rate limits), e.g. content-range of a 416. */
  errorHeaders?: RegExp;
}

// One pool set per connect timeout and proxy (undici sets them per agent). No cap on connections
// per origin: each open stream needs its own HTTP/1.1 connection. Through a proxy, every provider
// is reached by a CONNECT tunnel, as the task providers' got agents do (hpagent), so a proxy's
// refusal (407, 403) is a failed connection, never an answer relayed to the customer.
const direct = new Map<number, Agent>();
const proxied = new Map<string, ProxyAgent>();
const POOL = { keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 };
function agentFor(connectMs: number, proxy: URL | undefined): Dispatcher {
  if (proxy) {
    const key = `${connectMs} ${proxy.href}`;
    let agent = proxied.get(key);
    if (!agent) proxied.set(key, (agent = new ProxyAgent({ ...POOL, connect: { timeout: connectMs }, uri: proxy.href })));
    return agent;
  }
  let agent = direct.get(connectMs);
  if (!agent) direct.set(connectMs, (agent = new Agent({ ...POOL, connect: { timeout: connectMs } })));
  return agent;
}

/**
 * What undici is given to abort one attempt: an emitter with `aborted`, which undici accepts as a
 * signal. An AbortController per attempt cost an EventTarget with a hidden class of its own for
 * as long as the stream lasted (measured in a heap snapshot of 1,000 open streams).
 */
class Aborter extends EventEmitter {
  aborted = false;
  timedOut = false;
  abort = (): void => {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  };
}

/**
 * A listener on a caller's abort signal, and how to take it off. Behind each signal is one 'abort'
 * listener and a Set: every call in flight listens to the process's shutdown signal, where
 * EventTarget's addEventListener and removeEventListener each walk the whole list (a call added and
 * removed four listeners, so the cost grew with the calls open at once: 2.9% of the gateway's CPU
 * time at c=50 in a profile). Nothing is called for a signal aborted before: callers check it first.
 */
const abortListeners = new WeakMap<AbortSignal, Set<() => void>>();
function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let listeners = abortListeners.get(signal);
  if (!listeners) {
    const created = new Set<() => void>();
    abortListeners.set(signal, (listeners = created));
    signal.addEventListener(
      'abort',
      () => {
        for (const each of [...created]) each();
        created.clear();
      },
      { once: true },
    );
  }
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** `listener` on each of the signals there are; the function returned takes it off all of them. */
function onAnyAbort(first: AbortSignal | undefined, second: AbortSignal | undefined, listener: () => void): () => void {
  const offFirst = first ? onAbort(first, listener) : undefined;
  const offSecond = second ? onAbort(second, listener) : undefined;
  return () => {
    offFirst?.();
    offSecond?.();
  };
}

export async function callUpstream<Started>(call: UpstreamCall, hooks: CallHooks<Started>): Promise<UpstreamResponse | UpstreamError> {
  const started = hooks.onAttempt(call);
  const attempt = new Aborter();
  const timer = setTimeout(() => {
    attempt.timedOut = true;
    attempt.abort();
  }, call.firstByteMs);
  const callerAborted = () => call.signal?.aborted === true || call.also?.aborted === true;
  if (callerAborted()) attempt.abort();
  // One listener on the caller's signals for the whole call: it aborts the attempt and, once the
  // answer has come, the body being relayed (the caller's abort must still reach it then).
  let body: { destroy(): void } | undefined = undefined;
  const stopListening = onAnyAbort(call.signal, call.also, () => {
    attempt.abort();
    body?.destroy();
  });
  let response: Dispatcher.ResponseData;
  try {
    response = await request(call.url, {
      method: call.method,
      body: call.body,
      headers: call.headers,
      signal: attempt,
      dispatcher: agentFor(call.connectMs, call.proxy),
      headersTimeout: call.firstByteMs + 1_000, // ours fires first; this is a backstop
      bodyTimeout: call.idleMs,
    });
  } catch (error) {
    stopListening();
    if (attempt.timedOut) return failed(hooks, call, started, new UpstreamError('timeout', true));
    if (callerAborted()) return failed(hooks, call, started, new UpstreamError('aborted', false));
    const code = (error as { code?: string }).code ?? '';
    const osError = (error as { cause?: { code?: unknown } }).cause?.code ?? code;
    const kind = code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' ? 'timeout' : 'connect';
    return failed(
      hooks,
      call,
      started,
      new UpstreamError(kind, true, undefined, undefined, undefined, {}, typeof osError === 'string' && osError ? osError : undefined),
    );
  } finally {
    clearTimeout(timer);
  }
  body = response.body;
  response.body.once('close', stopListening);
  const headers = response.headers as IncomingHttpHeaders;
  const upstreamRequestId = first(headers[call.requestIdHeader ?? 'request-id']) ?? first(headers['x-request-id']);
  if (response.statusCode >= 400) {
    const text = await collect(response.body);
    return failed(
      hooks,
      call,
      started,
      new UpstreamError(
        'status',
        FAILOVER_STATUSES.has(response.statusCode),
        response.statusCode,
        text,
        upstreamRequestId,
        actionableHeaders(headers, call.errorHeaders),
      ),
    );
  }
  hooks.onResult(call, started, 'ok', response.statusCode, response.body);
  return { status: response.statusCode, headers, body: response.body, upstreamRequestId };
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function failed<Started>(hooks: CallHooks<Started>, call: UpstreamCall, started: Started, error: UpstreamError): UpstreamError {
  hooks.onResult(call, started, error.kind, error.status);
  return error;
}

function actionableHeaders(headers: IncomingHttpHeaders, more?: RegExp): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if ((CLIENT_ACTIONABLE_HEADERS.test(name) || more?.test(name)) && value !== undefined) kept[name] = String(first(value));
  return kept;
}

/** At most `limit` bytes of a body, decoded once (a character split between chunks stays whole); a broken body is still an answer. */
export async function collect(stream: NodeJS.ReadableStream & { destroy(): void }, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      chunks.push(buffer);
      size += buffer.length;
      if (size > limit) break;
    }
  } catch {
    /* what arrived is enough */
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** `base` with `path` appended: bases are given with or without a trailing slash. */
const joined = new Map<string, string>();
export function joinUrl(base: string, path: string): string {
  const key = `${base} ${path}`;
  let url = joined.get(key);
  if (url === undefined) {
    if (joined.size > 10_000) joined.clear();
    joined.set(key, (url = `${base.replace(/\/+$/, '')}${path}`));
  }
  return url;
}
