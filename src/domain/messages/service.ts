// POST /v1/messages and count_tokens: resolve the model, reserve an upper bound, forward to the
// routes by priority (failing over only before the first byte), relay, settle what was used.
import type { ServerResponse } from 'node:http';
import type { Caller } from '../../customers/service.ts';
import type { ResolvedRoute } from '../../catalogue/store.ts';
import type { TokenPrice } from '../../catalogue/types.ts';
import type { Problem } from '../../http/problem.ts';
import type { RequestOutcome } from '../../http/app.ts';
import { isLedgerError, LedgerError } from '../../ledger/errors.ts';
import type { Ledger } from '../../ledger/service.ts';
import type { Logger } from '../../logger.ts';
import { parseMicros } from '../../catalogue/decimal.ts';
import { sendAnthropic } from '../../providers/anthropic/client.ts';
import { UpstreamError, type UpstreamResponse } from '../../providers/types.ts';
import { tokenLines, type CostLine } from '../../pricing/cost.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { estimateInputTokens } from './estimate.ts';
import { messageProblems, upstreamProblem } from './errors.ts';
import { readJson, relayStream, sendJson, type RelayResult } from './relay.ts';
import { UsageTracker } from './usage.ts';

export interface MessagesRequest {
  caller: Caller;
  body: Record<string, unknown>;
  anthropicVersion: string;
  anthropicBeta: string | undefined;
  requestId: string;
  signal: AbortSignal;
  /** Filled as the request goes, for its request log row. */
  outcome: RequestOutcome;
}

export interface MessagesService {
  /** Writes the response itself on success; returns a Problem for the caller to render otherwise. */
  create(request: MessagesRequest, res: ServerResponse): Promise<Problem | undefined>;
  countTokens(request: MessagesRequest): Promise<{ input_tokens: number } | Problem>;
}

/** The reservation's upper bound: every input token at the dearest input rate, plus max_tokens. */
function boundLines(price: TokenPrice, inputTokens: number, maxTokens: number): CostLine[] {
  const inputRates = [price.input_per_mtok, price.cache_write_per_mtok ?? price.input_per_mtok].map(parseMicros);
  const dearest = inputRates.reduce((a, b) => (a > b ? a : b));
  return [
    { units: BigInt(inputTokens), microsPerMillion: dearest },
    { units: BigInt(maxTokens), microsPerMillion: parseMicros(price.output_per_mtok) },
  ];
}

export function createMessagesService(deps: { discovery: DiscoveryService; ledger: Ledger; logger: Logger }): MessagesService {
  const { discovery, ledger } = deps;

  function resolve(caller: Caller, modelId: unknown) {
    const model = typeof modelId === 'string' ? discovery.findModel(caller, modelId) : undefined;
    if (!model) return messageProblems.modelNotFound(String(modelId));
    if (model.group !== 'messages') return messageProblems.wrongGroup(model.id, model.group);
    const routes = model.routes.filter((r) => r.provider.protocol === 'anthropic' && r.provider.baseUrl);
    if (routes.length === 0) return messageProblems.noRoute(model.id);
    return { model, routes, price: model.price as TokenPrice };
  }

  async function firstAnswer(request: MessagesRequest, routes: ResolvedRoute[], path: '/v1/messages' | '/v1/messages/count_tokens', attempt: AbortController) {
    let last: { error: UpstreamError; route: ResolvedRoute } | undefined;
    for (const route of routes) {
      const answer = await sendAnthropic({
        provider: route.provider,
        path,
        body: JSON.stringify({ ...request.body, model: route.upstreamModel }),
        anthropicVersion: request.anthropicVersion,
        anthropicBeta: request.anthropicBeta,
        signal: attempt.signal,
      });
      if (!(answer instanceof UpstreamError)) return { response: answer, route };
      last = { error: answer, route };
      deps.logger.warn({ request_id: request.requestId, provider: route.provider.id, kind: answer.kind, status: answer.status, upstream_request_id: answer.upstreamRequestId }, 'upstream attempt failed');
      if (!answer.retryable || request.signal.aborted) break;
    }
    return last!;
  }

  return {
    async create(request, res) {
      const resolved = resolve(request.caller, request.body.model);
      if ('status' in resolved) return resolved;
      const { model, routes, price } = resolved;
      const inputEstimate = estimateInputTokens(request.body);
      const maxTokens = Number(request.body.max_tokens);
      const reserved = await ledger.reserve({
        ref: request.requestId,
        customerId: request.caller.customerId,
        bound: { lines: boundLines(price, inputEstimate, maxTokens) },
        purpose: { request_id: request.requestId, model: model.id },
        priceVersionId: model.priceVersion.id,
        ...(model.free_quota ? { free: { modelId: model.id, quota: model.free_quota } } : {}),
      });
      if (reserved === LedgerError.InsufficientFunds) return messageProblems.insufficientBalance();
      if (isLedgerError(reserved)) throw new Error(`reserve failed: ${reserved}`);

      const attempt = new AbortController();
      const onClientGone = () => attempt.abort();
      request.signal.addEventListener('abort', onClientGone);
      const startedAt = Date.now();
      try {
        const answer = await firstAnswer(request, routes, '/v1/messages', attempt);
        if ('error' in answer) {
          await ledger.release({ ref: request.requestId, purpose: { reason: `upstream ${answer.error.kind}` } });
          request.outcome.provider = answer.route.provider.id;
          request.outcome.upstream_request_id = answer.error.upstreamRequestId ?? null;
          return upstreamProblem(answer.error, answer.route.upstreamModel, model.id);
        }
        try {
          return await relayAndSettle(request, res, answer.response, answer.route, model.id, price, inputEstimate, attempt, startedAt);
        } catch (error) {
          // A failure while reading the answer must not leave the reservation held forever.
          deps.logger.error({ request_id: request.requestId, err: error }, 'relay failed; releasing the reservation');
          await ledger.release({ ref: request.requestId, purpose: { reason: 'relay failed' } }).catch(() => undefined);
          if (!res.headersSent) return { status: 502, type: 'api_error', message: 'The provider connection failed.' };
          res.destroy();
          return undefined;
        }
      } finally {
        request.signal.removeEventListener('abort', onClientGone);
      }
    },

    async countTokens(request) {
      const resolved = resolve(request.caller, request.body.model);
      if ('status' in resolved) return resolved.status === 500 ? { input_tokens: estimateInputTokens(request.body) } : resolved;
      const attempt = new AbortController();
      const answer = await firstAnswer(request, resolved.routes, '/v1/messages/count_tokens', attempt);
      if (!('error' in answer)) {
        request.outcome.provider = answer.route.provider.id;
        request.outcome.upstream_request_id = answer.response.upstreamRequestId ?? null;
        let text = '';
        for await (const chunk of answer.response.body as AsyncIterable<Buffer>) text += chunk.toString();
        const counted = (JSON.parse(text) as { input_tokens?: unknown }).input_tokens;
        if (typeof counted === 'number') return { input_tokens: counted };
      }
      // The provider cannot count (or failed): the gateway's own estimate, marked in the log.
      request.outcome.usage_estimated = true;
      return { input_tokens: estimateInputTokens(request.body) };
    },
  };

  async function relayAndSettle(
    request: MessagesRequest,
    res: ServerResponse,
    response: UpstreamResponse,
    route: ResolvedRoute,
    publicModel: string,
    price: TokenPrice,
    inputEstimate: number,
    attempt: AbortController,
    startedAt: number,
  ): Promise<Problem | undefined> {
    const usage = new UsageTracker();
    const streamed = String(response.headers['content-type'] ?? '').includes('text/event-stream');
    const options = { res, upstream: response, usage, publicModel, requestId: request.requestId, idleMs: route.provider.timeouts.idle_ms, abort: () => attempt.abort() };
    let relayed: RelayResult;
    let json: { text: string } | undefined;
    if (streamed) relayed = await relayStream(options);
    else {
      const read = await readJson(options);
      if (read === 'invalid') {
        await ledger.release({ ref: request.requestId, purpose: { reason: 'invalid upstream response' } });
        return { status: 502, type: 'api_error', message: 'The provider returned an invalid response.' };
      }
      json = read;
      relayed = { ending: 'complete', firstByteAt: undefined };
    }
    // The client gets its answer first; the settle follows at once (the request log row waits for
    // it). Holding the last bytes for a commit would add its round trip to every request.
    if (json) relayed.firstByteAt = sendJson(res, request.requestId, json.text);
    else if (!res.writableEnded && !res.destroyed) res.end();
    const { usage: used, estimated } = usage.result(inputEstimate);
    const settled = await ledger.settle({ ref: request.requestId, charge: { lines: tokenLines(price, used) }, purpose: { ending: relayed.ending, estimated }, customerId: request.caller.customerId });
    if (isLedgerError(settled)) deps.logger.error({ request_id: request.requestId, error: settled }, 'settle failed');
    Object.assign(request.outcome, {
      provider: route.provider.id,
      upstream_request_id: response.upstreamRequestId ?? null,
      ttfb_ms: relayed.firstByteAt ? relayed.firstByteAt - startedAt : null,
      input_tokens: used.input_tokens,
      output_tokens: used.output_tokens,
      cache_read_tokens: used.cache_read_input_tokens,
      cache_write_tokens: used.cache_creation_input_tokens,
      cost: isLedgerError(settled) ? null : settled.charged,
      usage_estimated: estimated,
      stream: streamed,
    });
    return undefined;
  }
}
