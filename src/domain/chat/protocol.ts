// The OpenAI Chat Completions protocol on the shared passthrough flow (src/domain/passthrough):
// models of group `chat`, served by `openai-chat` providers. The gateway reads `model`,
// `messages`, `stream`, `stream_options`, `max_tokens` / `max_completion_tokens` and `n`
// (fields.ts); the body reaches the provider as sent but for `model` and the usage option
// (body.ts); answers are relayed with usage read on the side (reader.ts, usage.ts).
import type { TokenPrice } from '../../catalogue/types.ts';
import type { CostLine } from '../../pricing/cost.ts';
import { holdPrice } from '../../pricing/tiers.ts';
import { openaiChatRequest, openaiErrorParam } from '../../providers/index.ts';
import { parseMicros } from '../../shared/money.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import type { Inspected, PassthroughProtocol } from '../passthrough/protocol.ts';
import { upstreamChatBody } from './body.ts';
import { checkChat, clientWantsUsage, inspectChat } from './fields.ts';
import { chatReader } from './reader.ts';

export const openaiChat: PassthroughProtocol = {
  group: 'chat',
  providerProtocols: new Set(['openai-chat']),
  streamHeaders: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },

  check: (body) => checkChat(body),

  inspect: (request, model) => inspectChat(request.body, model),

  upstream: (request, route, inspected) =>
    openaiChatRequest(route.provider, upstreamChatBody(request, route.upstreamModel, inspected.stream), route.upstreamModel),

  reader: (request, inspected, publicModel, upstreamModel) =>
    chatReader({
      inspected,
      clientWantsUsage: clientWantsUsage(request.body),
      choices: typeof request.body.n === 'number' ? request.body.n : 1,
      publicModel,
      upstreamModel,
    }),

  failure: (error, route, publicModel) =>
    passthroughFailures.fromUpstream(error, { upstream: route.upstreamModel, public: publicModel }, openaiErrorParam(error.body)),

  // What the OpenAI SDKs raise as an APIError mid-stream: a `data:` frame (no event name) whose
  // JSON has `error`. No `[DONE]` follows, so clients that skip errors still see a cut answer.
  streamError: (type, message) => `data: ${JSON.stringify({ error: { message, type, param: null, code: null } })}\n\n`,

  boundLines: (price, inspected) => chatBoundLines(price, inspected),

  outputLimitFields: ['max_completion_tokens', 'max_tokens'],
};

/**
 * The upper bound: the input estimate at the dearer of the input and cache-read rates, all output, at the priority premium if priced,
 * at the long-context tier the estimate can reach (pricing/tiers.ts).
 */
export function chatBoundLines(tiered: TokenPrice, inspected: Inspected): CostLine[] {
  const price = holdPrice(tiered, inspected.inputTokens);
  const input = parseMicros(price.input_per_mtok);
  const cacheRead = price.cache_read_per_mtok ? parseMicros(price.cache_read_per_mtok) : input;
  const multiplier = price.multipliers?.priority ? parseMicros(price.multipliers.priority) : 1_000_000n;
  const premium = multiplier > 1_000_000n ? multiplier : 1_000_000n;
  return [
    { units: BigInt(inspected.inputTokens), microsPerMillion: input > cacheRead ? input : cacheRead, multiplierMicros: premium },
    { units: BigInt(inspected.maxOutputTokens), microsPerMillion: parseMicros(price.output_per_mtok), multiplierMicros: premium },
  ];
}
