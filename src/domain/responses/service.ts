// /v1/responses on the shared passthrough flow: create (JSON or SSE) and compact, billed from
// their usage; input_tokens, free; and the calls on a relayed response (GET, DELETE, cancel,
// input_items, stored.ts). Every response id relayed is recorded with its owner and route
// (ids.ts); a request chained to one (`previous_response_id`) must be its owner's and goes to that
// route only, with the chained context added to its hold.
import type { CatalogueStore, ResolvedRoute } from '../../catalogue/store.ts';
import type { QuoteTokens, TokenQuote } from '../billing/token-quote.ts';
import type { TaskContext } from '../../tasks/context.ts';
import { applyOutcome } from '../../tasks/outcome.ts';
import { liveTaskByUpstreamId } from '../../tasks/rows.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import type { Passthrough, PassthroughResult } from '../passthrough/core.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import type { Sink } from '../sink.ts';
import { createBackground } from './background.ts';
import { checkResponses, isRecord } from './fields.ts';
import type { ResponseIds } from './ids.ts';
import { countInputTokens, type Counted } from './input-tokens.ts';
import { readResponse, RESPONSE_KIND, type ResponseTaskRow } from './kind.ts';
import { responsesFailure, responsesProtocol, type ResponsesContext } from './protocol.ts';
import type { ResponsesReader } from './reader.ts';
import { storedCall, type StoredAction, type StoredResult } from './stored.ts';

export interface ResponsesService {
  create(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
  /** The hold `create` would take for this body now (`dry_run: true`; a chained request's context included): nothing is held or sent. */
  quote(request: PassthroughRequest): Promise<TokenQuote | Failure>;
  compact(request: PassthroughRequest, sink: Sink): Promise<PassthroughResult>;
  inputTokens(request: PassthroughRequest): Promise<Counted>;
  /**
   * A WebSocket warm-up (`generate: false`, answered by the gateway, free): the checks a create
   * makes before it holds (the fields, the model, the owner of previous_response_id); the model's id.
   */
  warmup(request: PassthroughRequest): Promise<Failure | { model: string }>;
  stored(request: PassthroughRequest, action: StoredAction, responseId: string, query: Record<string, unknown>, sink: Sink): Promise<StoredResult>;
  /** Resolves once the response ids seen so far are recorded. */
  flush(): Promise<void>;
}

export interface ResponsesDeps {
  passthrough: Passthrough;
  discovery: DiscoveryService;
  catalogue: CatalogueStore;
  ids: ResponseIds;
  /** The task engine's context: background responses are its tasks of kind `response`. */
  tasks: TaskContext;
  quote: QuoteTokens;
}

export function createResponsesService(deps: ResponsesDeps): ResponsesService {
  /** The route a chained request must take and the context it carries; a 404 for an id the caller does not own. */
  async function chain(request: PassthroughRequest): Promise<Pick<ResponsesContext, 'pinnedProvider' | 'chainedInput'> | Failure> {
    const previous = request.body.previous_response_id;
    if (typeof previous !== 'string' || previous === '') return {};
    const row = await deps.ids.owned(request.caller.customerId, previous);
    if (!row) return passthroughFailures.responseNotFound(previous, 'previous_response_id');
    return { pinnedProvider: row.provider_id, chainedInput: row.context_tokens ?? 0 };
  }

  /** Records each response the provider names for this request, then its context once reported. */
  function recorder(request: PassthroughRequest): ResponsesContext['seen'] {
    let recorded: string | undefined;
    return (reader: ResponsesReader, route: ResolvedRoute, publicModel: string) => {
      const id = reader.responseId();
      if (!id) return;
      if (recorded !== id) {
        recorded = id;
        deps.ids.record({
          response_id: id,
          customer_id: request.caller.customerId,
          key_id: request.caller.keyId,
          provider_id: route.provider.id,
          model_id: publicModel,
          upstream_model: route.upstreamModel,
          request_id: request.requestId,
        });
      }
      const context = reader.contextTokens();
      if (context !== undefined) deps.ids.usage(id, context);
    };
  }

  async function run(request: PassthroughRequest, sink: Sink, path: '' | '/compact'): Promise<PassthroughResult> {
    const chained = await chain(request);
    if (chained instanceof Failure) return { failure: chained, log: {} };
    const protocol = responsesProtocol({ ...chained, path, ...(path === '' ? { seen: recorder(request) } : {}) });
    if (path === '' && request.body.background === true) {
      const result = await createBackground(deps, protocol, request, sink);
      return result.failure ? { ...result, failure: protocol.clientFailure!(result.failure) } : result;
    }
    return deps.passthrough.run(protocol, request, sink);
  }

  /** A confirmed cancel of a background response ends its hold at once (the poller would, later). */
  async function cancelled(request: PassthroughRequest, responseId: string, text: string): Promise<void> {
    const task = await liveTaskByUpstreamId(deps.tasks.db, RESPONSE_KIND, request.caller.customerId, responseId);
    const response: unknown = JSON.parse(text);
    if (!task || !isRecord(response)) return;
    await applyOutcome(deps.tasks, task, readResponse(task as ResponseTaskRow, response));
  }

  return {
    create: (request, sink) => run(request, sink, ''),
    compact: (request, sink) => run(request, sink, '/compact'),
    async quote(request) {
      const chained = await chain(request);
      return chained instanceof Failure ? responsesProtocol().clientFailure!(chained) : deps.quote(responsesProtocol(chained), request);
    },
    async inputTokens(request) {
      const chained = await chain(request);
      if (chained instanceof Failure) return { failure: chained, log: {} };
      return countInputTokens(deps, request, chained);
    },
    async warmup(request) {
      const refused = (failure: Failure) => responsesFailure(failure);
      const invalid = checkResponses(request.body);
      if (invalid) return refused(invalid);
      const chained = await chain(request);
      if (chained instanceof Failure) return chained;
      const resolved = deps.passthrough.resolve(responsesProtocol(chained), request);
      return resolved instanceof Failure ? refused(resolved) : { model: resolved.model.id };
    },
    flush: () => deps.ids.flush(),
    stored: (request, action, responseId, query, sink) =>
      storedCall(deps, {
        caller: request.caller,
        action,
        responseId,
        query,
        sink,
        ...(action === 'cancel' ? { answered: (text: string) => cancelled(request, responseId, text) } : {}),
      }),
  };
}
