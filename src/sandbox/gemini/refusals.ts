// What the simulated Gemini API refuses before answering, as Google's does: a body that is not a
// JSON object, a top-level name GenerateContentRequest does not have (its JSON parser refuses
// unknown names: "Unknown name ... Cannot find field"; both the JSON and the proto names are
// known), missing `contents`, and a model it does not serve. Google's error envelope:
// `{"error": {"code", "message", "status"}}`.
import type { JsonAnswer } from '../json-server.ts';
import { googleError } from '../vertex-veo/errors.ts';

/** GenerateContentRequest's fields (openapi/upstream/gemini-api.yaml), by JSON and proto name. */
export const GENERATE_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'toolConfig',
  'tool_config',
  'safetySettings',
  'safety_settings',
  'generationConfig',
  'generation_config',
  'cachedContent',
  'cached_content',
]);
const COUNT_FIELDS: ReadonlySet<string> = new Set(['contents', 'generateContentRequest', 'generate_content_request']);

/** The models the simulator serves: Google's names. */
export const servedModel = (model: string): boolean => /^gemini-[a-z0-9.-]+$/.test(model);

export function notFound(model: string, method: string): JsonAnswer {
  return googleError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

export function refusal(body: Record<string, unknown>, method: string): JsonAnswer | undefined {
  const known = method === 'countTokens' ? COUNT_FIELDS : GENERATE_FIELDS;
  const unknown = Object.keys(body).find((key) => !known.has(key));
  if (unknown !== undefined) return googleError(400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  if (method === 'countTokens') return undefined;
  if (!Array.isArray(body.contents) || body.contents.length === 0) return googleError(400, '* GenerateContentRequest.contents: contents is not specified\n');
  return undefined;
}
