// How an OpenAI-compatible Responses API wants to be called (OpenAI, Azure's v1 surface, vLLM,
// sglang, LiteLLM...): `base_url` is the API root with its version path
// (`https://api.openai.com/v1`), the gateway appends `/responses` and its sub-paths, the
// provider's credential goes as a bearer token, and its request id comes back in `x-request-id`.
// Customer keys and the client's headers never leave the gateway.
import { joinUrl } from '../http.ts';
import type { ResolvedProvider } from '../registry.ts';

export const OPENAI_RESPONSES_PATH = '/responses';
export const OPENAI_REQUEST_ID_HEADER = 'x-request-id';

/** `/responses`, or a path under it (`/abc/cancel` -> `/responses/abc/cancel`). */
export const openaiResponsesUrl = (baseUrl: string, under = ''): string =>
  under ? `${baseUrl.replace(/\/+$/, '')}${OPENAI_RESPONSES_PATH}${under}` : joinUrl(baseUrl, OPENAI_RESPONSES_PATH);

export function openaiResponsesHeaders(provider: ResolvedProvider, json = true): Record<string, string> {
  return {
    ...(json ? { 'content-type': 'application/json' } : {}),
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${provider.credential() ?? ''}`,
    'user-agent': 'ai-gateway',
  };
}
