// POST /v1/responses/input_tokens: the provider's count of a request's input (passthrough/count.ts),
// on the route a chained request is pinned to, with the chained context added to the estimate. A
// compatible server without the endpoint (404) gets the estimate too.
import { openaiResponsesPost } from '../../providers/index.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import { countByProvider, tokenCount, type Counted } from '../passthrough/count.ts';
import { modelFor } from '../passthrough/lookup.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { estimateResponsesInput } from './fields.ts';
import { responsesProtocol, upstreamResponsesBody, type ResponsesContext } from './protocol.ts';

export type InputTokens = { object: 'response.input_tokens'; input_tokens: number };

export async function countInputTokens(
  deps: { discovery: DiscoveryService },
  request: PassthroughRequest,
  chained: Pick<ResponsesContext, 'pinnedProvider' | 'chainedInput'>,
): Promise<Counted<InputTokens>> {
  const named = modelFor(deps.discovery, request.caller, request.body.model, 'responses');
  if (named instanceof Failure) return { failure: named, log: {} };
  const { model } = named;
  const protocol = responsesProtocol(chained);
  const routes = protocol.routes!(model.routes.filter((r) => r.provider.protocol === 'openai-responses' && r.provider.baseUrl));
  if (routes instanceof Failure) return { failure: routes, log: { model: model.id } };
  const counted = (tokens: number): InputTokens => ({ object: 'response.input_tokens', input_tokens: tokens });
  return countByProvider({
    model,
    route: routes[0],
    request: (route) => openaiResponsesPost(route.provider, '/input_tokens', upstreamResponsesBody(request, route.upstreamModel), route.upstreamModel),
    read: (answer) => {
      const tokens = tokenCount((answer as { input_tokens?: unknown } | undefined)?.input_tokens);
      return tokens === undefined ? undefined : counted(tokens);
    },
    estimate: () => counted(estimateResponsesInput(request.body, mediaAllowance('responses', model.media_tokens)) + (chained.chainedInput ?? 0)),
    refused: (error, route) => (error.status === 404 ? undefined : protocol.failure(error, route, model.id)),
  });
}
