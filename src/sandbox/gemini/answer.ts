// What the simulated Gemini model says, in Google's shapes: the answer's parts (text, a function
// call, or JSON that fits the request's responseJsonSchema, as Gemini CLI's router asks for),
// GenerateContentResponse chunks and the cumulative usageMetadata. The prompt's `[[sim ...]]`
// switches are the chat simulator's (src/sandbox/openai-chat/directives.ts): `cached=N` is
// cachedContentTokenCount, `reasoning=N` thoughtsTokenCount, `tool` a functionCall.
import { randomBytes } from 'node:crypto';
import type { ChatSimBehaviour } from '../openai-chat/directives.ts';
import { isRecord } from '../../shared/records.ts';

const WORDS = ['Hello', ' from', ' the', ' sandbox', ' model.', ' This', ' answer', ' is', ' simulated', ' and', ' deterministic.', ' Enjoy!'];

/** A value of a JSON schema's type (Google writes types upper-case): the required properties of an object, filled. */
function fitting(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 8) return null;
  const type = String(schema.type ?? 'object').toLowerCase();
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (type === 'string') return 'simulated';
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [fitting(schema.items, depth + 1)];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : Object.keys(properties);
  return Object.fromEntries(required.map((name) => [name, fitting(properties[name], depth + 1)]));
}

/** The answer's pieces, one token each: text pieces, a function call, or JSON for a schema (in pieces too). */
export interface GeminiAnswer {
  pieces: string[];
  call?: { name: string; args: Record<string, unknown> };
}

export function answerOf(body: Record<string, unknown>, behaviour: ChatSimBehaviour): GeminiAnswer {
  if (behaviour.tool) return { pieces: ['call'], call: { name: 'get_weather', args: { location: 'Paris', unit: 'celsius' } } };
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (config.responseMimeType === 'application/json' && schema !== undefined) {
    const json = JSON.stringify(fitting(schema));
    return { pieces: json.match(/.{1,8}/gs) ?? [json] };
  }
  return { pieces: Array.from({ length: behaviour.deltas ?? 8 }, (_, i) => WORDS[i % WORDS.length]!) };
}

export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  promptTokensDetails: Array<{ modality: string; tokenCount: number }>;
}

/** The counts after `sent` pieces of the answer (totals so far, as every chunk reports them). */
export function usageOf(promptTokens: number, sent: number, behaviour: ChatSimBehaviour): UsageMetadata {
  const cached = Math.min(behaviour.cachedTokens ?? 0, promptTokens);
  const thoughts = behaviour.reasoningTokens ?? 0;
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: sent,
    totalTokenCount: promptTokens + sent + thoughts,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
  };
}

export const responseId = (): string => randomBytes(12).toString('base64url');

/** The parts of pieces `from` to `to` of an answer. */
export function partsOf(answer: GeminiAnswer, pieces: string[]): Array<Record<string, unknown>> {
  if (answer.call) return [{ functionCall: { name: answer.call.name, args: answer.call.args } }];
  return [{ text: pieces.join('') }];
}

/** One GenerateContentResponse (a whole answer or a stream chunk). */
export function chunkOf(
  model: string,
  id: string,
  parts: Array<Record<string, unknown>>,
  finished: boolean,
  usage: UsageMetadata | undefined,
): Record<string, unknown> {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(finished ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: id,
  };
}
