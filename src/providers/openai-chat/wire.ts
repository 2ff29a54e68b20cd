// How an OpenAI-compatible Chat Completions API wants to be called (OpenAI, DeepSeek, Mistral,
// Groq, vLLM, Ollama...): `base_url` is the API root with its version path
// (`https://api.openai.com/v1`), the provider's credential goes as a bearer token, and the
// provider's request id comes back in `x-request-id`. Customer keys and the client's headers
// never leave the gateway. The Responses API is called the same way (../openai-responses/wire.ts).
import type { ResolvedProvider } from '../../catalogue/types.ts';
import type { ProviderRequest } from '../call.ts';
import { joinUrl } from '../http.ts';

export const OPENAI_CHAT_PATH = '/chat/completions';
export const OPENAI_REQUEST_ID_HEADER = 'x-request-id';

/** The headers of an OpenAI-style call: `json` when it carries a JSON body. */
export function openaiHeaders(provider: ResolvedProvider, json: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${provider.credential() ?? ''}`,
    'user-agent': 'ai-gateway',
  };
  if (json) headers['content-type'] = 'application/json';
  return headers;
}

export function openaiChatRequest(provider: ResolvedProvider, body: string, model: string): ProviderRequest {
  return { url: joinUrl(provider.baseUrl!, OPENAI_CHAT_PATH), headers: openaiHeaders(provider, true), body, requestIdHeader: OPENAI_REQUEST_ID_HEADER, model };
}
