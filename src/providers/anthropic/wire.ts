// How the Anthropic API wants to be called: `/v1/messages` and its count_tokens, the provider's
// credential as x-api-key, the client's anthropic-version (default 2023-06-01) and anthropic-beta
// list passed on, its request id in `request-id`. Customer keys never leave the gateway.
import type { ResolvedProvider } from '../../catalogue/types.ts';
import type { ProviderRequest } from '../call.ts';
import { joinUrl } from '../http.ts';

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_REQUEST_ID_HEADER = 'request-id';

export type AnthropicPath = '/v1/messages' | '/v1/messages/count_tokens';

type ClientHeaders = Record<string, string | string[] | undefined>;
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

/** A Messages API call with the client's version and betas (its other headers stay behind). */
export function anthropicRequest(provider: ResolvedProvider, path: AnthropicPath, client: ClientHeaders, body: string, model: string): ProviderRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'anthropic-version': one(client['anthropic-version']) || DEFAULT_ANTHROPIC_VERSION,
    'x-api-key': provider.credential() ?? '',
    'user-agent': 'ai-gateway',
  };
  const beta = one(client['anthropic-beta']);
  if (beta) headers['anthropic-beta'] = beta;
  return { url: anthropicUrl(provider.baseUrl!, path), headers, body, requestIdHeader: ANTHROPIC_REQUEST_ID_HEADER, model };
}

/** Anthropic paths carry /v1; base URLs are accepted with or without it. */
const anthropicUrl = (baseUrl: string, path: string): string => joinUrl(baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''), path);
