// POST /v1beta/models/{model}:countTokens: the provider's count of a request's input, free of
// charge (nothing is reserved; the request log records it). A provider that cannot count (an
// outage, a rate limit) gets the gateway's own estimate, marked in the log; its refusal of the
// request itself is the client's to see. The body goes as sent, but for the model a
// `generateContentRequest` names inside it (`models/...`), which becomes the route's.
import { GEMINI_PROTOCOLS } from '../../catalogue/types.ts';
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import { GEMINI_REQUEST_ID_HEADER, geminiHeaders, geminiUrl } from '../../providers/gemini/headers.ts';
import { callUpstream, collect } from '../../providers/http.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { Failure } from '../failure.ts';
import type { PassthroughRequest } from '../passthrough/protocol.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import { estimateGeminiInput, isRecord } from './fields.ts';
import { geminiUpstreamFailure } from './protocol.ts';

export type Counted = { counted: Record<string, unknown> & { totalTokens: number }; log: LogFields } | { failure: Failure; log: LogFields };

/** The body for the provider: the client's bytes, or with generateContentRequest.model naming the route's model. */
function countBody(request: PassthroughRequest, upstreamModel: string): Buffer | string {
  const inner = request.body.generateContentRequest;
  if (!isRecord(inner) || typeof inner.model !== 'string') return request.rawBody;
  return JSON.stringify({ ...request.body, generateContentRequest: { ...inner, model: `models/${upstreamModel}` } });
}

export async function countGeminiTokens(request: PassthroughRequest, model: ResolvedModel): Promise<Counted> {
  const estimate = (): Counted => ({
    counted: { totalTokens: estimateGeminiInput(request.body, mediaAllowance('gemini', model.media_tokens)) },
    log: { model: model.id, usage_estimated: true },
  });
  const route = model.routes.find((r) => GEMINI_PROTOCOLS.has(r.provider.protocol) && r.provider.baseUrl);
  if (!route) return estimate(); // nothing can count it: the gateway's own estimate, marked in the log
  const log = { model: model.id, provider: route.provider.id };
  const headers = await geminiHeaders(route.provider);
  if (headers instanceof UpstreamError) return estimate();
  const { timeouts } = route.provider;
  const answer = await callUpstream({
    url: geminiUrl(route.provider, route.upstreamModel, 'countTokens'),
    headers,
    body: countBody(request, route.upstreamModel),
    signal: AbortSignal.timeout(timeouts.response_ms),
    connectMs: timeouts.connect_ms,
    proxy: route.provider.proxy,
    firstByteMs: timeouts.first_byte_ms,
    idleMs: timeouts.idle_ms,
    requestIdHeader: GEMINI_REQUEST_ID_HEADER,
  });
  if (answer instanceof UpstreamError) {
    // The provider's verdict on the request itself is the client's to see; outages are not.
    if (answer.kind === 'status' && answer.status && answer.status < 500 && answer.status !== 429)
      return { failure: geminiUpstreamFailure(answer, route.upstreamModel, model.id), log };
    return estimate();
  }
  let counted: unknown;
  try {
    counted = JSON.parse(await collect(answer.body, 1024 * 1024));
  } catch {
    counted = undefined;
  }
  const total = isRecord(counted) ? counted.totalTokens : undefined;
  if (!isRecord(counted) || typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0) return estimate();
  return { counted: { ...counted, totalTokens: total }, log: { ...log, upstream_request_id: answer.upstreamRequestId ?? null } };
}
