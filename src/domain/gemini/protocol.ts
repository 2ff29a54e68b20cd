// The Gemini API on the shared passthrough flow (src/domain/passthrough): models of group
// `gemini`, served by `gemini` (Google AI Studio) and `vertex-gemini` (Vertex AI) providers. The
// model is in the URL path (`/v1beta/models/{model}:generateContent`), so the client's body reaches
// the provider byte for byte; the gateway reads `contents` and `generationConfig`'s output limits
// (fields.ts). Answers are relayed with usage read on the side (reader.ts, usage.ts). Built per
// request: the method and how the client wants a stream framed.
import type { TokenPrice } from '../../catalogue/types.ts';
import { GEMINI_PROTOCOLS } from '../../catalogue/types.ts';
import { tokenLines, type CostLine } from '../../pricing/cost.ts';
import { holdPrice } from '../../pricing/tiers.ts';
import { type GeminiMethod, geminiRequest, googleRetryDelay, type UpstreamError } from '../../providers/index.ts';
import { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import type { Inspected, PassthroughProtocol } from '../passthrough/protocol.ts';
import { checkGemini, inspectGemini } from './fields.ts';
import { geminiReader, googleStreamError, type GeminiFraming } from './reader.ts';

export function geminiProtocol(method: Exclude<GeminiMethod, 'countTokens'>, framing: GeminiFraming): PassthroughProtocol {
  const stream = method === 'streamGenerateContent';
  return {
    group: 'gemini',
    providerProtocols: GEMINI_PROTOCOLS,
    streamHeaders:
      framing === 'array'
        ? { 'content-type': 'application/json; charset=UTF-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }
        : { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },

    check: (body) => checkGemini(body),

    inspect: (request, model) => inspectGemini(request.body, model, stream),

    // The model is in the URL: the body goes as the client sent it, every byte.
    upstream: (request, route) => geminiRequest(route.provider, route.upstreamModel, method, request.rawBody),

    reader: (_request, inspected, publicModel, upstreamModel) => geminiReader({ inspected, framing: stream ? framing : 'json', publicModel, upstreamModel }),

    failure: (error, route, publicModel) => geminiUpstreamFailure(error, route.upstreamModel, publicModel),

    streamError: (type, message) => `data: ${googleStreamError(type, message)}\r\n\r\n`,

    boundLines: (price, inspected) => geminiBoundLines(price, inspected),
  };
}

/**
 * A provider's refusal as the client sees it (passthroughFailures.fromUpstream), with Google's
 * RetryInfo `retryDelay` ("17s") kept as `retry-after` when the provider sent no header: the
 * client's retry waits as long as the provider asked.
 */
export function geminiUpstreamFailure(error: UpstreamError, upstreamModel: string, publicModel: string): Failure {
  const failure = passthroughFailures.fromUpstream(error, { upstream: upstreamModel, public: publicModel });
  if (!(failure instanceof Failure) || error.status !== 429 || failure.details.headers?.['retry-after']) return failure;
  const delay = googleRetryDelay(error.body);
  return delay === undefined
    ? failure
    : new Failure(failure.code, failure.message, { ...failure.details, headers: { ...failure.details.headers, 'retry-after': delay } });
}

/**
 * The upper bound: the input estimate and all the output the request allows, priced as a bill
 * would price them (tokenLines), so a long-context tier that steps the whole request applies to
 * the hold as it will to the charge.
 */
export const geminiBoundLines = (price: TokenPrice, inspected: Inspected): CostLine[] =>
  tokenLines(holdPrice(price, inspected.inputTokens), { input_tokens: inspected.inputTokens, output_tokens: inspected.maxOutputTokens });
