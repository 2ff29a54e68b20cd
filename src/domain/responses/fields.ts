// The few request fields the gateway itself reads on /v1/responses, and the numbers the
// reservation needs. Everything else (input items, tools, reasoning, include, store, text,
// prompt_cache_key, fields not invented yet) is the provider's to judge. Codex never sends
// `max_output_tokens`: the hold then takes the model's output cap from the catalogue.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { estimateJsonTokens, type MediaAllowance } from '../passthrough/estimate.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import type { Inspected } from '../passthrough/protocol.ts';
export { isRecord } from '../../shared/records.ts';

/** Output reserved when neither the request nor the catalogue sets a limit (give real models `max_output_tokens`). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_768;
/** The largest max_output_tokens accepted for a model whose catalogue entry names no output limit. */
export const MAX_OUTPUT_CAP = 1_000_000;

const positiveInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;
/** The spec makes these fields nullable: null means "not set". */
const given = (value: unknown): boolean => value !== undefined && value !== null;

/** Checks the shape of the fields the gateway uses, naming the first that is wrong. */
export function checkResponses(body: Record<string, unknown>): Failure | undefined {
  if (given(body.stream) && typeof body.stream !== 'boolean') return passthroughFailures.invalid('stream', 'stream must be a boolean.');
  if (given(body.background) && typeof body.background !== 'boolean') return passthroughFailures.invalid('background', 'background must be a boolean.');
  if (given(body.max_output_tokens) && !positiveInteger(body.max_output_tokens))
    return passthroughFailures.invalid('max_output_tokens', 'max_output_tokens must be a positive integer.');
  if (given(body.previous_response_id) && (typeof body.previous_response_id !== 'string' || body.previous_response_id === ''))
    return passthroughFailures.invalid('previous_response_id', 'previous_response_id must be a response id.');
  return undefined;
}

/** The model's limit on max_output_tokens, and the reservation's numbers. Run after checkResponses. */
export function inspectResponses(body: Record<string, unknown>, model: ResolvedModel, chainedInput = 0): Inspected | Failure {
  const limit = model.max_output_tokens ?? MAX_OUTPUT_CAP;
  const asked = body.max_output_tokens;
  if (typeof asked === 'number' && asked > limit) {
    return passthroughFailures.invalid(
      'max_output_tokens',
      `max_output_tokens: ${asked > 1e15 ? 'the value' : asked} is greater than the maximum allowed for this model (${limit}).`,
    );
  }
  const maxOutputTokens = positiveInteger(asked) ? asked : (model.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  return {
    stream: body.stream === true,
    maxOutputTokens,
    inputTokens: estimateResponsesInput(body, mediaAllowance('responses', model.media_tokens)) + chainedInput,
  };
}

/**
 * Everything the model reads from the body: input (a string or items of any type; image, file and
 * audio content at their allowance), instructions,
 * tools, the text format's schema. A chained request's earlier context is not in the body: the
 * caller adds the input of the response it continues (`chainedInput`).
 */
export function estimateResponsesInput(body: Record<string, unknown>, media: MediaAllowance = mediaAllowance('responses')): number {
  const items = Array.isArray(body.input) ? body.input.length : 1;
  return estimateJsonTokens([body.input ?? null, body.instructions ?? null, body.tools ?? null, body.text ?? null], media) + 4 * items + 8;
}
