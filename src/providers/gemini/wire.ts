// How the Gemini API wants to be called. Google AI Studio (`gemini`): the root
// https://generativelanguage.googleapis.com (with or without /v1beta), the method on the model's
// resource (`/v1beta/models/{model}:generateContent`), the provider's key as `x-goog-api-key`.
// Vertex AI (`vertex-gemini`): a location's resource prefix
// (`https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}`), the
// method on `/publishers/google/models/{model}`, a service account's OAuth token as a bearer
// (src/providers/vertex-veo/auth.ts). Streams are always asked for as SSE (`alt=sse`). Customer
// keys and the client's headers never leave the gateway.
import type { ResolvedProvider } from '../../catalogue/types.ts';
import type { ProviderRequest } from '../call.ts';
import { UpstreamError } from '../types.ts';
import { accessToken } from '../vertex-veo/auth.ts';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** Google's front ends answer no request id header of their own; undici's fallback reads x-request-id. */
export const GEMINI_REQUEST_ID_HEADER = 'x-request-id';

const root = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/** The method's URL on the provider: AI Studio's model resource or Vertex's publisher model. */
function geminiUrl(provider: ResolvedProvider, model: string, method: GeminiMethod): string {
  const name = encodeURIComponent(model);
  const query = method === 'streamGenerateContent' ? '?alt=sse' : '';
  if (provider.protocol === 'vertex-gemini') return `${root(provider.baseUrl!)}/publishers/google/models/${name}:${method}${query}`;
  return `${root(provider.baseUrl!).replace(/\/v1beta$/, '')}/v1beta/models/${name}:${method}${query}`;
}

/**
 * A method on a model, with the provider's credential in the header its API reads: a key for AI
 * Studio, an access token for Vertex (minted when needed: a failure to mint is the call's failure).
 */
export async function geminiRequest(
  provider: ResolvedProvider,
  model: string,
  method: GeminiMethod,
  body: Buffer | string,
): Promise<ProviderRequest | UpstreamError> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'user-agent': 'ai-gateway' };
  if (provider.protocol !== 'vertex-gemini') headers['x-goog-api-key'] = provider.credential() ?? '';
  else {
    const token = await accessToken(provider);
    if (token instanceof UpstreamError) return token;
    headers.authorization = `Bearer ${token}`;
  }
  return { url: geminiUrl(provider, model, method), headers, body, requestIdHeader: GEMINI_REQUEST_ID_HEADER, model };
}
