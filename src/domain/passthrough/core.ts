// The passthrough flow every protocol shares: resolve the model and its routes -> read the fields
// the gateway uses -> hold an upper bound (too little balance is refused before any upstream call)
// -> forward with the provider's credential, failing over only before the first byte -> relay JSON
// or SSE with usage read on the side -> settle what was used, release the rest. The hold is
// scoped: it ends exactly once on every path (see src/holds/holds.ts).
import type { ResolvedModel, ResolvedRoute } from '../../catalogue/store.ts';
import type { TokenPrice } from '../../catalogue/types.ts';
import { KeyLimitRefusal, LedgerError } from '../../ledger/index.ts';
import type { Hold, Holds } from '../../holds/index.ts';
import type { Logger } from '../../logger.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import type { UpstreamMetrics } from '../../metrics/hooks.ts';
import { costOf } from '../../pricing/cost.ts';
import type { UpstreamResponse } from '../../providers/index.ts';
import { routeCost, upstreamCost } from '../../pricing/upstream-cost.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import { keyLimitFailure, rateLimitHeaders, withRateHeaders, type HeaderStyle } from '../limits/headers.ts';
import type { Sink } from '../sink.ts';
import { routesForSession, sessionIdOf } from './affinity.ts';
import { PassthroughError, passthroughFailures } from './errors.ts';
import type { Adaptation, Inspected, PassthroughProtocol, PassthroughRequest, UsageReader } from './protocol.ts';
import { holdFields, settledFields } from './receipt-fields.ts';
import { forward } from './forward.ts';
import { readJson, relayStream, type Relayed } from './relay.ts';
import { adaptToSubstitute } from './substitution.ts';

export interface PassthroughDeps {
  discovery: DiscoveryService;
  holds: Holds;
  logger: Logger;
  /** Aborted when the process stops waiting for open requests at shutdown: streams are cut. */
  shutdown: AbortSignal;
  metrics?: UpstreamMetrics;
}

export interface PassthroughResult {
  failure?: Failure;
  log: LogFields;
  /** Resolves once the charge is durable, with the amount charged. */
  settled?: Promise<LogFields>;
}

export interface Resolved {
  model: ResolvedModel;
  /** By priority; a session's own order within each priority (affinity.ts). */
  routes: ResolvedRoute[];
  price: TokenPrice;
  /** The request as it goes upstream: the client's, or adapted to a model the gateway substituted (substitution.ts). */
  request: PassthroughRequest;
  adaptation: Omit<Adaptation, 'request'>;
}

export function createPassthrough(deps: PassthroughDeps) {
  async function resolve(protocol: PassthroughProtocol, request: PassthroughRequest): Promise<Resolved | Failure> {
    const id = request.model ?? request.body.model;
    if (typeof id !== 'string' || id === '')
      return passthroughFailures.invalid('model', 'model must be a non-empty string naming a model from GET /v1/models.');
    const named = deps.discovery.resolveModel(request.caller, id);
    if (!named) {
      const retired = deps.discovery.retirement(request.caller, id);
      return retired ? passthroughFailures.modelRetired(retired) : passthroughFailures.modelNotFound(id.slice(0, 200));
    }
    if (named.model.group !== protocol.group) return passthroughFailures.wrongEndpoint(named.model.id, named.model.group);
    const served = named.model.routes.filter((r) => protocol.providerProtocols.has(r.provider.protocol) && r.provider.baseUrl);
    if (served.length === 0) return passthroughFailures.noProvider(named.model.id);
    // At the caller's prices (its plan's, frozen as a version): the hold, the settle and the
    // receipt of this request all use this one model.
    const model = await deps.discovery.priced(request.caller, named.model);
    const routes = protocol.routes ? protocol.routes(served) : served;
    if (routes instanceof Failure) return routes;
    const substituted = named.via === 'id' ? undefined : adaptToSubstitute(protocol, request, model);
    const adaptation = substituted ? { headers: substituted.headers, log: substituted.log } : NOT_ADAPTED;
    const ordered = routesForSession(routes, sessionIdOf(request.headers));
    return { model, routes: ordered, price: model.price as TokenPrice, request: substituted?.request ?? request, adaptation };
  }

  async function exchange(
    protocol: PassthroughProtocol,
    request: PassthroughRequest,
    sink: Sink,
    resolved: Resolved,
    inspected: Inspected,
    hold: Hold,
  ): Promise<PassthroughResult> {
    const started = Date.now();
    const answer = await forward(deps, protocol, request, resolved.routes, inspected, sink.signal);
    // Object.assign, not spreads: see `merged` below.
    const log: LogFields = Object.assign(
      { model: resolved.model.id, stream: inspected.stream, provider: answer.route.provider.id },
      holdFields(resolved.model, hold),
      resolved.adaptation.log,
    );
    if ('error' in answer) {
      void hold.release(`upstream ${answer.error.kind}`);
      const failure = withHeaders(withRateHeaders(protocol.failure(answer.error, answer.route, resolved.model.id), styleOf(protocol), hold.rate), resolved);
      const why = answer.error.osError ?? (answer.error.status ? `status ${answer.error.status}` : answer.error.kind);
      return { failure, log: merged(log, { upstream_request_id: answer.error.upstreamRequestId ?? null, upstream_error: why }) };
    }
    const reader = protocol.reader(request, inspected, resolved.model.id, answer.route.upstreamModel, answer.route);
    // What the delivered usage cost the operator through the route that served it (for the operator only).
    const upstream = () => upstreamCost(routeCost(answer.route), answer.route.cost ? reader.bill(answer.route.cost as TokenPrice).lines : undefined);
    const checkpoint = () => {
      const bill = reader.bill(resolved.price);
      hold.checkpoint(costOf(bill.lines), { input_tokens: bill.log.input_tokens, output_tokens: bill.log.output_tokens, upstream_cost: upstream() });
    };
    const headers = merged(rateLimitHeaders(styleOf(protocol), hold.rate), resolved.adaptation.headers);
    const relayed = await relay(protocol, sink, answer.response, reader, inspected, answer.route.provider.timeouts.idle_ms, checkpoint, headers);
    if (relayed.ending === 'invalid') {
      void hold.release('invalid upstream response');
      return { failure: new Failure(PassthroughError.UpstreamInvalidResponse, ''), log };
    }
    if (relayed.firstByteAt === undefined) {
      // Nothing of the provider's reached the client (a broken stream, a client gone before the
      // first event): nothing to bill.
      const released = hold.release(`nothing delivered (${relayed.ending})`).then((): LogFields => ({ cost: 0n }));
      return { log: merged(log, { interrupted: true }), settled: released };
    }
    const bill = reader.bill(resolved.price);
    const interrupted = relayed.ending !== 'complete';
    const charged = { ending: relayed.ending, estimated: bill.estimated, priced: bill.priced, model: resolved.model.id, upstream_cost: upstream() };
    const settled = hold.settle({ lines: bill.lines }, charged).then((result): LogFields => {
      if (typeof result === 'string') {
        deps.logger.error({ request_id: request.requestId, error: result }, 'settle refused');
        return { cost: null };
      }
      // What the delivered usage cost: posted, plus what the balance could not cover (recorded as debt).
      return settledFields(result);
    });
    return {
      log: Object.assign({}, log, bill.log, {
        usage_estimated: bill.estimated,
        interrupted,
        upstream_request_id: answer.response.upstreamRequestId ?? null,
        ttfb_ms: relayed.firstByteAt ? relayed.firstByteAt - started : null,
      }),
      settled,
    };
  }

  async function relay(
    protocol: PassthroughProtocol,
    sink: Sink,
    response: UpstreamResponse,
    reader: UsageReader,
    inspected: Inspected,
    idleMs: number,
    checkpoint: () => void,
    headers: Record<string, string>,
  ): Promise<Relayed> {
    const streamed = String(response.headers['content-type'] ?? '').includes('text/event-stream');
    if (streamed) {
      return relayStream({
        sink,
        upstream: response,
        reader,
        protocol,
        idleMs,
        maxOutputTokens: inspected.maxOutputTokens,
        shutdown: deps.shutdown,
        onProgress: checkpoint,
        baseHeaders: headers,
      });
    }
    const text = await readJson(response, reader);
    if (text === undefined) return { ending: 'invalid', firstByteAt: undefined };
    if (sink.closed) return { ending: 'client_gone', firstByteAt: undefined };
    sink.send(200, merged(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }), text);
    return { ending: 'complete', firstByteAt: Date.now() };
  }

  return {
    async run(protocol: PassthroughProtocol, request: PassthroughRequest, sink: Sink): Promise<PassthroughResult> {
      const result = await run(protocol, request, sink);
      return result.failure && protocol.clientFailure ? { ...result, failure: protocol.clientFailure(result.failure) } : result;
    },
    /** The model and the routes a request may take (background responses hold and call on their own). */
    resolve,
  };

  async function run(protocol: PassthroughProtocol, raw: PassthroughRequest, sink: Sink): Promise<PassthroughResult> {
    const invalid = protocol.check(raw.body);
    if (invalid) return { failure: invalid, log: {} };
    const resolved = await resolve(protocol, raw);
    if (resolved instanceof Failure) return { failure: resolved, log: {} };
    const { model, request } = resolved;
    const adapted = { model: model.id, ...resolved.adaptation.log };
    const inspected = protocol.inspect(request, model);
    if (inspected instanceof Failure) return { failure: withHeaders(inspected, resolved), log: adapted };
    const outcome = await deps.holds.scope(
      {
        ref: request.requestId,
        customerId: request.caller.customerId,
        bound: { lines: protocol.boundLines(resolved.price, inspected) },
        purpose: { request_id: request.requestId, model: model.id, key_id: request.caller.keyId, endpoint: request.endpoint },
        priceVersionId: model.priceVersion.id,
        ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
        limits: request.caller.limited,
      },
      (hold) => exchange(protocol, request, sink, resolved, inspected, hold),
    );
    if (outcome instanceof KeyLimitRefusal) return { failure: withHeaders(keyLimitFailure(outcome, styleOf(protocol)), resolved), log: adapted };
    if (outcome === LedgerError.InsufficientFunds)
      return { failure: withHeaders(passthroughFailures.insufficientBalance('its input plus the most output it may produce'), resolved), log: adapted };
    if (typeof outcome === 'string') throw new Error(`reserve failed: ${outcome}`);
    return outcome;
  }
}

export type Passthrough = ReturnType<typeof createPassthrough>;

const NOT_ADAPTED: Resolved['adaptation'] = Object.freeze({ headers: Object.freeze({}), log: Object.freeze({}) });

/**
 * `{ ...a, ...b }` as a new object. In this V8 (Node 20) an object literal with a second spread, or
 * with properties after a spread, takes a slow path (about 1.4 us for two small objects against
 * 0.1 us for Object.assign, measured in a loop); the request path builds several per request. Only
 * for objects the gateway made itself: Object.assign would run a `__proto__` setter a spread defines.
 */
const merged = <A extends object, B extends object>(a: A, b: B): A & B => Object.assign({}, a, b);

/** A failure after the model was resolved says what the gateway adapted too. */
const withHeaders = (failure: Failure, resolved: Resolved): Failure =>
  Object.keys(resolved.adaptation.headers).length === 0
    ? failure
    : new Failure(failure.code, failure.message, { ...failure.details, headers: { ...resolved.adaptation.headers, ...failure.details.headers } });

/** Messages speak Anthropic's headers and errors, chat completions OpenAI's. */
const styleOf = (protocol: PassthroughProtocol): HeaderStyle => (protocol.group === 'messages' ? 'anthropic' : 'openai');
