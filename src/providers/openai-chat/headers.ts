// How an OpenAI-compatible Chat Completions API wants to be called (OpenAI, DeepSeek, Mistral,
// Groq, vLLM, Ollama...): `base_url` is the API root with its version path
// (`https://api.openai.com/v1`), the provider's credential goes as a bearer token, and the
// provider's request id comes back in `x-request-id`. Customer keys and the client's headers
// never leave the gateway.
import { joinUrl } from '../http.ts';
import type { ResolvedProvider } from '../registry.ts';

export const OPENAI_CHAT_PATH = '/chat/completions';
export const OPENAI_REQUEST_ID_HEADER = 'x-request-id';

export const openaiChatUrl = (baseUrl: string): string => joinUrl(baseUrl, OPENAI_CHAT_PATH);

export function openaiChatHeaders(provider: ResolvedProvider): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${provider.credential() ?? ''}`,
    'user-agent': 'ai-gateway',
  };
}
