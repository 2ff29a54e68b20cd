// POST /v1/responses/input_tokens: the provider's count of a request's input, free of charge
// (nothing is reserved; the request log records it). A provider that cannot count (an outage, a
// compatible server without the endpoint) gets the gateway's own estimate, marked in the log; its
// refusal of the request itself is the client's to see.
import type { LogFields } from '../../logs/request-logs.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { OPENAI_REQUEST_ID_HEADER, openaiResponsesHeaders, openaiResponsesUrl } from '../../providers/openai-responses/headers.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { estimateResponsesInput } from './fields.ts';
import { responsesProtocol, upstreamResponsesBody, type ResponsesContext } from './protocol.ts';

export type Counted = { counted: { object: 'response.input_tokens'; input_tokens: number }; log: LogFields } | { failure: Failure; log: LogFields };

export async function countInputTokens(
  deps: { discovery: DiscoveryService },
  request: PassthroughRequest,
  chained: Pick<ResponsesContext, 'pinnedProvider' | 'chainedInput'>,
): Promise<Counted> {
  const id = request.body.model;
  if (typeof id !== 'string' || id === '')
    return { failure: passthroughFailures.invalid('model', 'model must be a non-empty string naming a model from GET /v1/models.'), log: {} };
  const model = deps.discovery.findModel(request.caller, id);
  if (!model) {
    const retired = deps.discovery.retirement(request.caller, id);
    return { failure: retired ? passthroughFailures.modelRetired(retired) : passthroughFailures.modelNotFound(id.slice(0, 200)), log: {} };
  }
  if (model.group !== 'responses') return { failure: passthroughFailures.wrongEndpoint(model.id, model.group), log: { model: model.id } };
  const protocol = responsesProtocol(chained);
  const served = model.routes.filter((r) => r.provider.protocol === 'openai-responses' && r.provider.baseUrl);
  const routes = protocol.routes!(served);
  if (!Array.isArray(routes)) return { failure: routes, log: { model: model.id } };
  const estimate = (): Counted => ({
    counted: {
      object: 'response.input_tokens',
      input_tokens: estimateResponsesInput(request.body, mediaAllowance('responses', model.media_tokens)) + (chained.chainedInput ?? 0),
    },
    log: { model: model.id, usage_estimated: true },
  });
  const [route] = routes;
  if (!route) return estimate();
  const { timeouts } = route.provider;
  const answer = await callUpstream({
    url: openaiResponsesUrl(route.provider.baseUrl!, '/input_tokens'),
    headers: openaiResponsesHeaders(route.provider),
    body: upstreamResponsesBody(request, route.upstreamModel),
    signal: AbortSignal.timeout(timeouts.response_ms),
    connectMs: timeouts.connect_ms,
    proxy: route.provider.proxy,
    firstByteMs: timeouts.first_byte_ms,
    idleMs: timeouts.idle_ms,
    requestIdHeader: OPENAI_REQUEST_ID_HEADER,
  });
  const log = { model: model.id, provider: route.provider.id };
  if (answer instanceof UpstreamError) {
    if (answer.kind === 'status' && answer.status && answer.status < 500 && answer.status !== 429 && answer.status !== 404)
      return { failure: protocol.failure(answer, route, model.id), log };
    return estimate();
  }
  let counted: unknown;
  try {
    counted = (JSON.parse(await collect(answer.body, 1024 * 1024)) as { input_tokens?: unknown }).input_tokens;
  } catch {
    counted = undefined;
  }
  if (typeof counted !== 'number' || !Number.isSafeInteger(counted) || counted < 0) return estimate();
  return { counted: { object: 'response.input_tokens', input_tokens: counted }, log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
}
