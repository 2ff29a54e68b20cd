// The Anthropic Messages protocol on the shared passthrough flow. The gateway reads `model`,
// `max_tokens`, `messages` (a non-empty array of objects with a string role) and `stream`;
// everything else (roles, block types, top-level fields, betas) reaches the provider as sent.
import type { TokenPrice } from '../../catalogue/types.ts';
import type { CostLine } from '../../pricing/cost.ts';
import { holdPrice } from '../../pricing/tiers.ts';
import { anthropicHeaders, anthropicUrl } from '../../providers/anthropic/headers.ts';
import { parseMicros } from '../../shared/money.ts';
import { spliceFirstMember, spliceTopLevelString } from '../../shared/json-splice.ts';
import { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { estimateJsonTokens, type MediaAllowance } from '../passthrough/estimate.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import type { Inspected, PassthroughProtocol, PassthroughRequest, UsageReader } from '../passthrough/protocol.ts';
import type { Adaptation } from '../passthrough/substitution.ts';
import { AnthropicUsage } from './usage.ts';

/** The largest max_tokens accepted for a model whose catalogue entry names no output limit. */
export const MAX_TOKENS_CAP = 1_000_000;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

/** Checks the fields the gateway itself uses, naming the first that is wrong. */
export function inspectMessages(
  body: Record<string, unknown>,
  maxOutput: number | undefined,
  countTokens = false,
): Failure | { stream: boolean; maxTokens: number } {
  const limit = maxOutput ?? MAX_TOKENS_CAP;
  if (!countTokens) {
    const maxTokens = body.max_tokens;
    if (maxTokens === undefined) return passthroughFailures.invalid('max_tokens', 'max_tokens: Field required.');
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)
      return passthroughFailures.invalid('max_tokens', 'max_tokens must be a positive integer.');
    if (maxTokens > limit)
      return passthroughFailures.invalid(
        'max_tokens',
        `max_tokens: ${maxTokens > 1e15 ? 'the value' : maxTokens} is greater than the maximum allowed for this model (${limit}).`,
      );
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return passthroughFailures.invalid('messages', 'messages must be a non-empty array.');
  for (const [i, message] of messages.entries()) {
    if (!message || typeof message !== 'object' || Array.isArray(message))
      return passthroughFailures.invalid(`messages.${i}`, `messages.${i} must be an object.`);
    if (typeof (message as { role?: unknown }).role !== 'string')
      return passthroughFailures.invalid(`messages.${i}.role`, `messages.${i}.role must be a string.`);
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return passthroughFailures.invalid('stream', 'stream must be a boolean.');
  return { stream: body.stream === true, maxTokens: countTokens ? 0 : (body.max_tokens as number) };
}

/** Everything the model reads: system, messages, tools (iterative, any block type; image and document blocks at their allowance). */
export function estimateMessagesInput(body: Record<string, unknown>, media: MediaAllowance = mediaAllowance('messages')): number {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  return estimateJsonTokens([body.system ?? null, body.messages ?? null, body.tools ?? null], media) + 4 * messages + 8;
}

/** The model's public id in place of the upstream name, in a message object's text. */
const withPublicModel = (text: string, upstream: string, publicId: string) =>
  upstream === publicId ? text : (spliceFirstMember(text, 'model', upstream, publicId) ?? text);

function reader(inspected: Inspected, fast: boolean, publicModel: string, upstreamModel: string): UsageReader {
  const usage = new AnthropicUsage(inspected.inputTokens, inspected.maxOutputTokens, fast);
  let stopped = false;
  let errored = false;
  return {
    json(text) {
      let message: { type?: unknown; usage?: unknown; content?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return undefined;
      }
      if (!message || typeof message !== 'object') return undefined;
      usage.observe(message.usage, true);
      usage.deliveredBlocks(message.content);
      stopped = true;
      return withPublicModel(text, upstreamModel, publicModel);
    },
    frame(frame) {
      const name = frame.event;
      if (name === 'ping' || !frame.data) return frame.raw;
      if (
        name !== undefined &&
        name !== 'message_start' &&
        name !== 'message_delta' &&
        name !== 'content_block_start' &&
        name !== 'content_block_delta' &&
        name !== 'message_stop' &&
        name !== 'error'
      )
        return frame.raw;
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(frame.data) as Record<string, unknown>;
      } catch {
        return frame.raw; // not ours to judge: the client's SDK decides
      }
      switch (name ?? payload.type) {
        case 'message_start': {
          const message = payload.message as { usage?: unknown } | undefined;
          usage.observe(message?.usage, false);
          return withPublicModel(frame.raw, upstreamModel, publicModel);
        }
        case 'content_block_start':
          usage.deliveredDelta(payload.content_block);
          return frame.raw;
        case 'content_block_delta':
          usage.deliveredDelta(payload.delta);
          return frame.raw;
        case 'message_delta':
          usage.observe(payload.usage, true);
          return frame.raw;
        case 'message_stop':
          stopped = true;
          return frame.raw;
        case 'error':
          errored = true;
          return frame.raw;
        default:
          return frame.raw; // unknown events pass through untouched
      }
    },
    complete: () => stopped,
    errored: () => errored,
    outputTokens: () => usage.outputTokens(),
    bill: (price) => usage.bill(price),
  };
}

export const anthropicMessages: PassthroughProtocol = {
  group: 'messages',
  providerProtocols: new Set(['anthropic']),
  streamHeaders: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },

  check(body) {
    const checked = inspectMessages(body, undefined);
    return checked instanceof Failure ? checked : undefined;
  },

  inspect(request, model) {
    const checked = inspectMessages(request.body, model.max_output_tokens);
    if (checked instanceof Failure) return checked;
    const inputTokens = estimateMessagesInput(request.body, mediaAllowance('messages', model.media_tokens));
    return { stream: checked.stream, maxOutputTokens: checked.maxTokens, inputTokens };
  },

  upstream(request, route) {
    return {
      url: anthropicUrl(route.provider.baseUrl!, '/v1/messages'),
      headers: anthropicHeaders(route.provider, { version: one(request.headers['anthropic-version']), beta: one(request.headers['anthropic-beta']) }),
      body: upstreamBody(request, route.upstreamModel),
      requestIdHeader: 'request-id',
    };
  },

  reader: (request, inspected, publicModel, upstreamModel) => reader(inspected, request.body.speed === 'fast', publicModel, upstreamModel),

  failure: (error, route, publicModel) => passthroughFailures.fromUpstream(error, { upstream: route.upstreamModel, public: publicModel }),

  streamError: (type, message) => `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`,

  boundLines: (price, inspected) => messagesBoundLines(price, inspected),

  outputLimitFields: ['max_tokens'],

  adaptToSubstitute: (request, model) => withoutLongContextBeta(request, model),
};

/** Context-window betas (`context-1m-2025-08-07`): Claude Code sends one for a `[1m]` model choice. */
const LONG_CONTEXT_BETA = /^context-\d+m-/;
export const BETA_DROPPED_HEADER = 'x-gateway-beta-dropped';

/**
 * A model the gateway substituted whose context window is smaller than a 1M-context beta asks for
 * would refuse the beta (the provider answers 400 for a model without it): the beta is left out,
 * and the answer names it. Every other beta, and any beta for a model named by its id, goes as sent.
 */
function withoutLongContextBeta(request: PassthroughRequest, model: { context_window?: number }): Adaptation {
  const betas =
    one(request.headers['anthropic-beta'])
      ?.split(',')
      .map((b) => b.trim()) ?? [];
  const window = model.context_window;
  const dropped = window === undefined ? [] : betas.filter((b) => LONG_CONTEXT_BETA.test(b) && Number(/^context-(\d+)m-/.exec(b)![1]) * 1_000_000 > window);
  if (dropped.length === 0) return { request, headers: {}, log: {} };
  const kept = betas.filter((b) => !dropped.includes(b) && b !== '');
  const headers = { ...request.headers, 'anthropic-beta': kept.length > 0 ? kept.join(',') : undefined };
  return { request: { ...request, headers }, headers: { [BETA_DROPPED_HEADER]: dropped.join(',') }, log: {} };
}

/** The client's bytes with only `model` changed. */
export function upstreamBody(request: PassthroughRequest, upstreamModel: string): string {
  const raw = request.rawBody.toString('utf8');
  return spliceTopLevelString(raw, 'model', upstreamModel) ?? JSON.stringify({ ...request.body, model: upstreamModel });
}

/** The upper bound: every input token at the dearest input rate, plus all output, at the highest premium and the long-context tier the estimate can reach. */
export function messagesBoundLines(tiered: TokenPrice, inspected: Inspected): CostLine[] {
  const price = holdPrice(tiered, inspected.inputTokens);
  const rates = [price.input_per_mtok, price.cache_write_per_mtok, price.cache_write_1h_per_mtok].filter((p): p is string => p !== undefined).map(parseMicros);
  const dearest = rates.reduce((a, b) => (a > b ? a : b));
  const premiums = [price.multipliers?.fast, price.multipliers?.priority].filter((p): p is string => p !== undefined).map(parseMicros);
  const multiplier = premiums.reduce((a, b) => (a > b ? a : b), 1_000_000n);
  return [
    { units: BigInt(inspected.inputTokens), microsPerMillion: dearest, multiplierMicros: multiplier },
    { units: BigInt(inspected.maxOutputTokens), microsPerMillion: parseMicros(price.output_per_mtok), multiplierMicros: multiplier },
  ];
}
