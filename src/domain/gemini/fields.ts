// The few request fields the gateway itself reads on the Gemini API (generateContent,
// streamGenerateContent, countTokens): `contents` (a list of objects), `generationConfig`'s
// `maxOutputTokens` and `candidateCount`, and the text the model reads for the estimate. The model
// is in the URL path, not the body. Everything else (parts of any kind, tools, toolConfig,
// thinkingConfig, safetySettings, cachedContent, fields not invented yet) is the provider's to judge.
// Field names are the API's JSON names; proto3 JSON parsers also take the snake_case ones, so both
// are read.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { Failure } from '../failure.ts';
import { passthroughFailures } from '../passthrough/errors.ts';
import { estimateJsonTokens, type MediaAllowance } from '../passthrough/estimate.ts';
import { mediaAllowance } from '../passthrough/media.ts';
import type { Inspected } from '../passthrough/protocol.ts';
export { isRecord } from '../../shared/records.ts';
import { isRecord } from '../../shared/records.ts';

/** The largest maxOutputTokens accepted for a model whose catalogue entry names no output limit. */
export const MAX_OUTPUT_CAP = 1_000_000;
/** Output tokens per candidate reserved when neither the request nor the catalogue sets a limit (Gemini Pro's own limit). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 65_536;
/** The API's own bound on candidateCount. */
export const MAX_CANDIDATES = 8;

const positiveInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;

/** A field by its JSON name or its proto name (`generationConfig` or `generation_config`). */
export const field = (body: Record<string, unknown>, camel: string, snake: string): unknown => body[camel] ?? body[snake];

function generationConfig(body: Record<string, unknown>): Record<string, unknown> | undefined | 'invalid' {
  const config = field(body, 'generationConfig', 'generation_config');
  if (config === undefined || config === null) return undefined;
  return isRecord(config) ? config : 'invalid';
}

/** Checks the shape of the fields the gateway uses, naming the first that is wrong (`contents[2]`). */
export function checkGemini(body: Record<string, unknown>, countTokens = false): Failure | undefined {
  const contents = body.contents;
  if (countTokens && contents === undefined) return undefined; // countTokens may send generateContentRequest instead
  if (!Array.isArray(contents) || contents.length === 0)
    return passthroughFailures.invalid('contents', 'contents must be a non-empty list of Content objects.');
  for (const [i, content] of contents.entries())
    if (!isRecord(content)) return passthroughFailures.invalid(`contents[${i}]`, `contents[${i}] must be an object.`);
  const config = generationConfig(body);
  if (config === 'invalid') return passthroughFailures.invalid('generationConfig', 'generationConfig must be an object.');
  if (!config) return undefined;
  const max = field(config, 'maxOutputTokens', 'max_output_tokens');
  if (max !== undefined && max !== null && !positiveInteger(max))
    return passthroughFailures.invalid('generationConfig.maxOutputTokens', 'generationConfig.maxOutputTokens must be a positive integer.');
  const candidates = field(config, 'candidateCount', 'candidate_count');
  if (candidates !== undefined && candidates !== null && !(positiveInteger(candidates) && candidates <= MAX_CANDIDATES))
    return passthroughFailures.invalid('generationConfig.candidateCount', `generationConfig.candidateCount must be an integer from 1 to ${MAX_CANDIDATES}.`);
  return undefined;
}

/** The model's limit on maxOutputTokens, and the reservation's numbers. Run after checkGemini. */
export function inspectGemini(body: Record<string, unknown>, model: ResolvedModel, stream: boolean): Inspected | Failure {
  const config = generationConfig(body);
  const asked = config && config !== 'invalid' ? field(config, 'maxOutputTokens', 'max_output_tokens') : undefined;
  const limit = model.max_output_tokens ?? MAX_OUTPUT_CAP;
  if (typeof asked === 'number' && asked > limit)
    return passthroughFailures.invalid(
      'generationConfig.maxOutputTokens',
      `generationConfig.maxOutputTokens: ${asked > 1e15 ? 'the value' : asked} is greater than the maximum allowed for this model (${limit}).`,
    );
  const candidates = config && config !== 'invalid' ? field(config, 'candidateCount', 'candidate_count') : undefined;
  // Thinking tokens count against maxOutputTokens on the models that think, so the cap bounds them too.
  const perCandidate = positiveInteger(asked) ? asked : (model.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  return {
    stream,
    maxOutputTokens: perCandidate * (positiveInteger(candidates) ? candidates : 1),
    inputTokens: estimateGeminiInput(body, mediaAllowance('gemini', model.media_tokens)),
  };
}

/** Everything the model reads: contents, the system instruction, tools and their configuration. */
export function estimateGeminiInput(body: Record<string, unknown>, media: MediaAllowance = mediaAllowance('gemini')): number {
  const request = isRecord(body.generateContentRequest) ? body.generateContentRequest : body; // countTokens' other form
  const contents = Array.isArray(request.contents) ? request.contents.length : 0;
  return (
    estimateJsonTokens(
      [
        request.contents ?? null,
        field(request, 'systemInstruction', 'system_instruction') ?? null,
        request.tools ?? null,
        field(request, 'toolConfig', 'tool_config') ?? null,
      ],
      media,
    ) +
    4 * contents +
    8
  );
}
