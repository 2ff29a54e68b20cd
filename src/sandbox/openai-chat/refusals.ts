// What the simulated upstream refuses before answering, as api.openai.com does: unknown top-level
// fields (OpenAI's request body is closed; see openapi/upstream/README.md, "Strictness"),
// `stream_options` on a non-streaming request, and a missing model or message list.
import { errorBody } from './responses.ts';

/**
 * The top-level fields of CreateChatCompletionRequest in the vendored OpenAI document
 * (openapi/upstream/openai-chat-completions.yaml); a unit test keeps the two equal.
 */
export const KNOWN_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'metadata',
  'top_logprobs',
  'temperature',
  'top_p',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'messages',
  'model',
  'service_tier',
  'modalities',
  'verbosity',
  'reasoning_effort',
  'max_completion_tokens',
  'frequency_penalty',
  'presence_penalty',
  'web_search_options',
  'response_format',
  'audio',
  'store',
  'moderation',
  'stream',
  'stop',
  'logit_bias',
  'logprobs',
  'max_tokens',
  'n',
  'prediction',
  'seed',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'function_call',
  'functions',
]);

export function refusal(body: Record<string, unknown>): ReturnType<typeof errorBody> | undefined {
  const unknown = Object.keys(body).find((key) => !KNOWN_REQUEST_FIELDS.has(key));
  if (unknown !== undefined) return errorBody(400, { message: `Unrecognized request argument supplied: ${unknown}` });
  if (typeof body.model !== 'string') return errorBody(400, { message: 'you must provide a model parameter' });
  if (body.messages === undefined)
    return errorBody(400, { message: "Missing required parameter: 'messages'.", param: 'messages', code: 'missing_required_parameter' });
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return errorBody(400, {
      message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'messages',
      code: 'empty_array',
    });
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return errorBody(400, { message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param: 'stream_options' });
  }
  return undefined;
}
