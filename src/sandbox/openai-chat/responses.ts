// What the simulated chat model says, in OpenAI's shapes: the completion object, stream chunks,
// the usage object and error bodies.
import { randomBytes } from 'node:crypto';
import type { ChatSimBehaviour } from './directives.ts';

const WORDS = ['Hello', ' from', ' the', ' sandbox', ' model.', ' This', ' answer', ' is', ' simulated', ' and', ' deterministic.', ' Enjoy!'];
const TOOL_ARGUMENTS = ['{"location":', ' "Paris",', ' "unit":', ' "celsius"}'];

export const chatId = (): string => `chatcmpl-${randomBytes(12).toString('base64url')}`;
export const requestId = (): string => `req_${randomBytes(16).toString('hex')}`;

/** One choice's answer: text pieces, or a tool call whose arguments arrive in pieces. Each piece is one token. */
export interface Answer {
  pieces: string[];
  tool?: { id: string; name: string };
}

export function answerOf(behaviour: ChatSimBehaviour): Answer {
  if (behaviour.tool) return { pieces: TOOL_ARGUMENTS, tool: { id: `call_${randomBytes(12).toString('base64url')}`, name: 'get_weather' } };
  return { pieces: Array.from({ length: behaviour.deltas ?? 8 }, (_, i) => WORDS[i % WORDS.length]!) };
}

export function usageOf(promptTokens: number, answer: Answer, choices: number, behaviour: ChatSimBehaviour) {
  const reasoning = behaviour.reasoningTokens ?? 0;
  const completion = answer.pieces.length * choices + reasoning;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    prompt_tokens_details: { cached_tokens: Math.min(behaviour.cachedTokens ?? 0, promptTokens), audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

export function completionMessage(answer: Answer) {
  if (!answer.tool) return { role: 'assistant', content: answer.pieces.join(''), refusal: null, annotations: [] };
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    annotations: [],
    tool_calls: [{ id: answer.tool.id, type: 'function', function: { name: answer.tool.name, arguments: answer.pieces.join('') } }],
  };
}

/** The first delta of a choice (role, and the tool call's id and name), then one per piece. */
export function firstDelta(answer: Answer) {
  if (!answer.tool) return { role: 'assistant', content: '', refusal: null };
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [{ index: 0, id: answer.tool.id, type: 'function', function: { name: answer.tool.name, arguments: '' } }],
  };
}

export function pieceDelta(answer: Answer, piece: string) {
  return answer.tool ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece };
}

export const finishReason = (answer: Answer): string => (answer.tool ? 'tool_calls' : 'stop');

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request (simulated).', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { message: 'The model does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'Rate limit reached for requests. Please try again in 1s.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

/** OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`. */
export function errorBody(status: number, override: { message?: string; param?: string | null; code?: string | null } = {}) {
  const known = ERRORS[status] ?? { message: `Simulated error ${status}.`, type: status < 500 ? 'invalid_request_error' : 'server_error', code: null };
  return {
    error: {
      message: override.message ?? known.message,
      type: known.type,
      param: override.param ?? null,
      code: override.code !== undefined ? override.code : known.code,
    },
  };
}
