// How an OpenAI-compatible Responses API wants to be called (OpenAI, Azure's v1 surface, vLLM,
// sglang, LiteLLM...): `base_url` is the API root with its version path
// (`https://api.openai.com/v1`), the gateway appends `/responses` and its sub-paths; credential,
// headers and request id as every OpenAI-style API takes them (../openai-chat/wire.ts). Customer
// keys and the client's headers never leave the gateway.
import type { ResolvedProvider } from '../../catalogue/types.ts';
import type { ProviderRequest } from '../call.ts';
import { joinUrl } from '../http.ts';
import { OPENAI_REQUEST_ID_HEADER, openaiHeaders } from '../openai-chat/wire.ts';

export const OPENAI_RESPONSES_PATH = '/responses';

/** `/responses`, or a path under it (`/abc/cancel` -> `/responses/abc/cancel`). */
const responsesUrl = (baseUrl: string, under: string): string =>
  under ? `${baseUrl.replace(/\/+$/, '')}${OPENAI_RESPONSES_PATH}${under}` : joinUrl(baseUrl, OPENAI_RESPONSES_PATH);

/** A JSON body POSTed to `/responses` or under it: a create, a compact, an input count. */
export function openaiResponsesPost(provider: ResolvedProvider, under: string, body: string, model: string): ProviderRequest {
  return { url: responsesUrl(provider.baseUrl!, under), headers: openaiHeaders(provider, true), body, requestIdHeader: OPENAI_REQUEST_ID_HEADER, model };
}

/** A call without a body on a stored response (`/{id}`, `/{id}/cancel`, `/{id}/input_items`): a read, a delete, a cancel. */
export function openaiResponsesCall(provider: ResolvedProvider, method: 'GET' | 'DELETE' | 'POST', under: string): ProviderRequest {
  return { method, url: responsesUrl(provider.baseUrl!, under), headers: openaiHeaders(provider, false), requestIdHeader: OPENAI_REQUEST_ID_HEADER };
}
