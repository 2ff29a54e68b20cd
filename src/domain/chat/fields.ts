// The few request fields the gateway itself reads on /v1/chat/completions, and the numbers the
// reservation needs. Everything else (tools, response_format, reasoning_effort, audio, fields not
// invented yet) is the provider's to judge. Parameter names in errors follow OpenAI's style
// (`messages[2].role`).
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { estimateJsonTokens, type MediaAllowance } from '../passthrough/estimate.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import type { Inspected } from '../passthrough/protocol.ts';
export { isRecord } from '../../shared/records.ts';
import { isRecord } from '../../shared/records.ts';

/** The largest max_tokens / max_completion_tokens accepted for a model whose catalogue entry names no output limit. */
export const MAX_TOKENS_CAP = 1_000_000;
/** OpenAI's own limit on `n`; a larger fan-out would make the reservation meaningless. */
export const MAX_CHOICES = 128;
/**
 * Output tokens per choice reserved when neither the client nor the catalogue sets a limit. The
 * answer is billed (and a stream relayed) up to this bound: give real models `max_output_tokens`.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

const LIMIT_FIELDS = ['max_completion_tokens', 'max_tokens'] as const;

const positiveInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;
/** The spec makes these fields nullable: null means "not set". */
const given = (value: unknown): boolean => value !== undefined && value !== null;

/** Checks the shape of the fields the gateway uses, naming the first that is wrong. */
export function checkChat(body: Record<string, unknown>): Failure | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return passthroughFailures.invalid('messages', 'messages must be a non-empty array.');
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return passthroughFailures.invalid(`messages[${i}]`, `messages[${i}] must be an object.`);
    if (typeof message.role !== 'string') return passthroughFailures.invalid(`messages[${i}].role`, `messages[${i}].role must be a string.`);
  }
  if (given(body.stream) && typeof body.stream !== 'boolean') return passthroughFailures.invalid('stream', 'stream must be a boolean.');
  for (const field of LIMIT_FIELDS) {
    if (given(body[field]) && !positiveInteger(body[field])) return passthroughFailures.invalid(field, `${field} must be a positive integer.`);
  }
  if (given(body.n) && !(positiveInteger(body.n) && body.n <= MAX_CHOICES))
    return passthroughFailures.invalid('n', `n must be an integer from 1 to ${MAX_CHOICES}.`);
  if (given(body.stream_options) && !isRecord(body.stream_options)) return passthroughFailures.invalid('stream_options', 'stream_options must be an object.');
  return undefined;
}

/** The model's limit on the output fields, and the reservation's numbers. Run after checkChat. */
export function inspectChat(body: Record<string, unknown>, model: ResolvedModel): Inspected | Failure {
  const limit = model.max_output_tokens ?? MAX_TOKENS_CAP;
  for (const field of LIMIT_FIELDS) {
    const value = body[field];
    if (typeof value === 'number' && value > limit) {
      return passthroughFailures.invalid(
        field,
        `${field}: ${value > 1e15 ? 'the value' : value} is greater than the maximum allowed for this model (${limit}).`,
      );
    }
  }
  // Both fields set: providers differ in which one they honour, so the larger bounds either.
  const asked = LIMIT_FIELDS.map((field) => body[field]).filter(positiveInteger);
  const perChoice = asked.length > 0 ? Math.max(...asked) : (model.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  const choices = positiveInteger(body.n) ? body.n : 1;
  return {
    stream: body.stream === true,
    maxOutputTokens: perChoice * choices,
    inputTokens: estimateChatInput(body, mediaAllowance('chat', model.media_tokens)),
  };
}

/** Everything the model reads: messages (image, audio and file parts at their allowance), tools (and the deprecated functions), a response schema. */
export function estimateChatInput(body: Record<string, unknown>, media: MediaAllowance = mediaAllowance('chat')): number {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  return estimateJsonTokens([body.messages ?? null, body.tools ?? null, body.functions ?? null, body.response_format ?? null], media) + 4 * messages + 8;
}

/** The client asked for the usage chunk itself (`stream_options.include_usage: true`). */
export const clientWantsUsage = (body: Record<string, unknown>): boolean => isRecord(body.stream_options) && body.stream_options.include_usage === true;
