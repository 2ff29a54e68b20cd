// The one way to call a provider. Every upstream call goes through a provider's call hooks: the
// text protocols' calls here (callProvider: the relay's stream, or a JSON answer read whole), the
// task providers' calls through their got instance (task-client.ts, whose hooks report here too).
// What wraps an attempt (the upstream metrics; a client span) is the provider's CallHooks, given
// when the catalogue resolves it (registry.ts): nothing else times, counts or traces a call.
import type { ResolvedProvider } from '../catalogue/types.ts';
import type { UpstreamMetrics } from '../metrics/hooks.ts';
import { callUpstream, collect } from './http.ts';
import { UpstreamError, type CallHooks, type UpstreamResponse } from './types.ts';

const silent: CallHooks = { onAttempt: () => undefined, onResult: () => undefined };
const observed = new WeakMap<ResolvedProvider, CallHooks>();

/** Gives a resolved provider its hooks (one set per provider: a catalogue reload makes new providers). */
export function observeCalls(provider: ResolvedProvider, hooks: CallHooks<any>): void {
  observed.set(provider, hooks);
}

/** The provider's hooks; none for a provider built outside the registry (unit tests). */
export const hooksOf = (provider: ResolvedProvider): CallHooks => observed.get(provider) ?? silent;

/**
 * Several observers of one provider's calls as one set of hooks: each told in order, each given
 * back what its own onAttempt returned. One set is itself (the relay allocates nothing more).
 */
export function combineHooks(all: ReadonlyArray<CallHooks<any>>): CallHooks<any> {
  if (all.length === 1) return all[0]!;
  return {
    onAttempt: (attempt) => all.map((hooks) => hooks.onAttempt(attempt)),
    onResult: (attempt, started: unknown[], outcome, status, body) => all.forEach((hooks, i) => hooks.onResult(attempt, started[i], outcome, status, body)),
  };
}

/** The upstream metrics as hooks: each attempt counted by outcome and status, timed to its answer. */
export function meteredCalls(metrics: Pick<UpstreamMetrics, 'upstreamAttempt'>): CallHooks<number> {
  return {
    onAttempt: () => performance.now(),
    onResult: (attempt, began, outcome, status) => metrics.upstreamAttempt(attempt.provider.id, performance.now() - began, outcome, status),
  };
}

/** A request as a provider's wire module builds it (src/providers/<p>/). */
export interface ProviderRequest {
  method?: 'POST' | 'GET' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** Header carrying the provider's request id. */
  requestIdHeader: string;
  /** The model name sent upstream, when the call is an inference. */
  model?: string;
}

/**
 * What the first byte waits for: `first-byte`, a provider that starts answering at once (a stream,
 * a count, a status read): its `first_byte_ms`; `whole-answer`, one that sends its first byte with
 * the whole answer (a generation not streamed): its `response_ms`.
 */
export type Wait = 'first-byte' | 'whole-answer';

/**
 * One attempt of a request on a provider, with its timeouts and proxy: the response to relay, or
 * the failure normalised. `client` (the client gone) and `also` (the process's shutdown) end it.
 */
export function callProvider(
  provider: ResolvedProvider,
  request: ProviderRequest,
  wait: Wait,
  client?: AbortSignal,
  also?: AbortSignal,
): Promise<UpstreamResponse | UpstreamError> {
  const { timeouts } = provider;
  return callUpstream(
    {
      provider,
      method: request.method ?? 'POST',
      url: request.url,
      headers: request.headers,
      body: request.body,
      signal: client,
      also,
      connectMs: timeouts.connect_ms,
      proxy: provider.proxy,
      firstByteMs: wait === 'first-byte' ? timeouts.first_byte_ms : timeouts.response_ms,
      idleMs: timeouts.idle_ms,
      requestIdHeader: request.requestIdHeader,
      model: request.model,
    },
    hooksOf(provider),
  );
}

export interface JsonAnswer {
  status: number;
  /** The answer's text, at most `limit` bytes of it. */
  text: string;
  /** The text parsed; undefined when it is not JSON. */
  json: unknown;
  upstreamRequestId: string | undefined;
}

/** A call whose answer is one JSON document (a count, a status, a stored object), read whole. */
export async function callProviderJson(
  provider: ResolvedProvider,
  request: ProviderRequest,
  options: { wait: Wait; limit: number; client?: AbortSignal },
): Promise<JsonAnswer | UpstreamError> {
  const answer = await callProvider(provider, request, options.wait, options.client);
  if (answer instanceof UpstreamError) return answer;
  const text = await collect(answer.body, options.limit);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: answer.status, text, json, upstreamRequestId: answer.upstreamRequestId };
}
