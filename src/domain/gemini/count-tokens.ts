// POST /v1beta/models/{model}:countTokens: the provider's count of a request's input
// (passthrough/count.ts). The body goes as sent, but for the model a `generateContentRequest`
// names inside it (`models/...`), which becomes the route's.
import { GEMINI_PROTOCOLS } from '../../catalogue/types.ts';
import type { ResolvedModel } from '../../catalogue/store.ts';
import { geminiRequest } from '../../providers/index.ts';
import { countByProvider, tokenCount, type Counted } from '../passthrough/count.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { estimateGeminiInput, isRecord } from './fields.ts';
import { geminiUpstreamFailure } from './protocol.ts';

export type GeminiCount = Record<string, unknown> & { totalTokens: number };

/** The body for the provider: the client's bytes, or with generateContentRequest.model naming the route's model. */
function countBody(request: PassthroughRequest, upstreamModel: string): Buffer | string {
  const inner = request.body.generateContentRequest;
  if (!isRecord(inner) || typeof inner.model !== 'string') return request.rawBody;
  return JSON.stringify({ ...request.body, generateContentRequest: { ...inner, model: `models/${upstreamModel}` } });
}

export function countGeminiTokens(request: PassthroughRequest, model: ResolvedModel): Promise<Counted<GeminiCount>> {
  return countByProvider<GeminiCount>({
    model,
    route: model.routes.find((r) => GEMINI_PROTOCOLS.has(r.provider.protocol) && r.provider.baseUrl),
    request: (route) => geminiRequest(route.provider, route.upstreamModel, 'countTokens', countBody(request, route.upstreamModel)),
    // The provider's whole answer goes back (cachedContentTokenCount, promptTokensDetails...), its total checked.
    read: (answer) => {
      const total = isRecord(answer) ? tokenCount(answer.totalTokens) : undefined;
      return total === undefined ? undefined : { ...(answer as Record<string, unknown>), totalTokens: total };
    },
    estimate: () => ({ totalTokens: estimateGeminiInput(request.body, mediaAllowance('gemini', model.media_tokens)) }),
    refused: (error, route) => geminiUpstreamFailure(error, route.upstreamModel, model.id),
  });
}
