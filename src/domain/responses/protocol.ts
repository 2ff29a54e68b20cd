// The OpenAI Responses protocol on the shared passthrough flow (src/domain/passthrough): models of
// group `responses`, served by `openai-responses` providers. The gateway reads `model`, `stream`,
// `background`, `max_output_tokens` and `previous_response_id` (fields.ts); the body reaches the
// provider as sent but for `model` (store, include, item ids and unknown fields untouched);
// answers are relayed with usage read on the side (reader.ts, usage.ts). Built per request: a
// request chained to an earlier response (`previous_response_id`) is pinned to the route that
// served it, and every response id relayed is reported to `seen` (ownership, src/domain/responses/ids.ts).
import type { ResolvedRoute } from '../../catalogue/store.ts';
import type { TokenPrice } from '../../catalogue/types.ts';
import { LedgerError } from '../../ledger/index.ts';
import type { CostLine } from '../../pricing/cost.ts';
import { holdPrice } from '../../pricing/tiers.ts';
import { openaiErrorParam, openaiResponsesPost } from '../../providers/index.ts';
import { parseMicros } from '../../shared/money.ts';
import { spliceTopLevelString } from '../../shared/json-splice.ts';
import { Failure } from '../failure.ts';
import { PassthroughError, passthroughFailures } from '../passthrough/errors.ts';
import type { Inspected, PassthroughProtocol, PassthroughRequest } from '../passthrough/protocol.ts';
import { checkResponses, inspectResponses } from './fields.ts';
import { failedEvent, responsesReader, type ResponsesReader } from './reader.ts';

export interface ResponsesContext {
  /** The provider that served the response this request continues: only its route may serve it. */
  pinnedProvider?: string;
  /** Tokens of the context the chained response carries (its input and output), not in the body. */
  chainedInput?: number;
  /** Told about every response the provider names, as soon as it names it, and of its usage once known. */
  seen?(reader: ResponsesReader, route: ResolvedRoute, publicModel: string): void;
  /** `compact`: POST /responses/compact (billed from its usage like a response). */
  path?: '' | '/compact';
}

/** The client's bytes with only `model` changed. */
export function upstreamResponsesBody(request: PassthroughRequest, upstreamModel: string): string {
  const raw = request.rawBody.toString('utf8');
  return spliceTopLevelString(raw, 'model', upstreamModel) ?? JSON.stringify({ ...request.body, model: upstreamModel });
}

export function responsesProtocol(context: ResponsesContext = {}): PassthroughProtocol {
  return {
    group: 'responses',
    providerProtocols: new Set(['openai-responses']),
    streamHeaders: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },

    check: (body) => checkResponses(body),

    inspect: (request, model) => inspectResponses(request.body, model, context.chainedInput ?? 0),

    routes(routes) {
      if (context.pinnedProvider === undefined) return routes;
      const pinned = routes.filter((route) => route.provider.id === context.pinnedProvider);
      if (pinned.length > 0) return pinned.slice(0, 1); // never another account: it does not know the response
      return passthroughFailures.invalid(
        'previous_response_id',
        'The provider that served previous_response_id no longer serves this model; start a new conversation without previous_response_id.',
      );
    },

    upstream: (request, route) =>
      openaiResponsesPost(route.provider, context.path ?? '', upstreamResponsesBody(request, route.upstreamModel), route.upstreamModel),

    reader(_request, inspected, publicModel, upstreamModel, route) {
      const reader = responsesReader({ inspected, publicModel, upstreamModel, onResponse: () => context.seen?.(reader, route!, publicModel) });
      return reader;
    },

    failure: (error, route, publicModel) =>
      responsesFailure(passthroughFailures.fromUpstream(error, { upstream: route.upstreamModel, public: publicModel }, openaiErrorParam(error.body))),

    streamError: (_type, message) => failedEvent(message, { sequence: 0, model: '' }),

    boundLines: (price, inspected) => responsesBoundLines(price, inspected),

    clientFailure: (failure) => responsesFailure(failure),

    outputLimitFields: ['max_output_tokens'],
  };
}

/**
 * Failures in the words Codex acts on: a balance or spend-limit refusal is `insufficient_quota`
 * (Codex stops and says so), a rate limit `rate_limit_exceeded` with "try again in Ns" in the
 * message and `retry-after` (Codex waits that long and retries).
 */
export function responsesFailure(failure: Failure): Failure {
  if (failure.code === PassthroughError.InsufficientBalance || failure.code === LedgerError.KeySpendLimitExceeded)
    return new Failure(PassthroughError.InsufficientQuota, failure.message, failure.details);
  const limited = failure.code === LedgerError.KeyRateLimited || failure.details.upstream?.status === 429;
  if (!limited) return failure;
  const wait = retryAfterSeconds(failure.details.headers);
  const message = /try again in/i.test(failure.message) || wait === undefined ? failure.message : `${failure.message} Please try again in ${wait}s.`;
  return new Failure(LedgerError.KeyRateLimited, message, failure.details);
}

function retryAfterSeconds(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

/**
 * The upper bound: the input estimate at the dearest input rate (cache writes may cost more), all output, at the highest tier premium
 * and the long-context tier the estimate can reach (pricing/tiers.ts).
 */
export function responsesBoundLines(tiered: TokenPrice, inspected: Inspected): CostLine[] {
  const price = holdPrice(tiered, inspected.inputTokens);
  const rates = [price.input_per_mtok, price.cache_write_per_mtok, price.cache_read_per_mtok].filter((p): p is string => p !== undefined).map(parseMicros);
  const dearest = rates.reduce((a, b) => (a > b ? a : b));
  const premiums = [price.multipliers?.priority, price.multipliers?.ultrafast].filter((p): p is string => p !== undefined).map(parseMicros);
  const multiplier = premiums.reduce((a, b) => (a > b ? a : b), 1_000_000n);
  return [
    { units: BigInt(inspected.inputTokens), microsPerMillion: dearest, multiplierMicros: multiplier },
    { units: BigInt(inspected.maxOutputTokens), microsPerMillion: parseMicros(price.output_per_mtok), multiplierMicros: multiplier },
  ];
}
