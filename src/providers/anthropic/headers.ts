// How the Anthropic API wants to be called: the provider's credential as x-api-key, the client's
// anthropic-version (default 2023-06-01) and anthropic-beta list passed on. Customer keys never
// leave the gateway.
import { joinUrl } from '../http.ts';
import type { ResolvedProvider } from '../registry.ts';

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export function anthropicHeaders(provider: ResolvedProvider, client: { version: string | undefined; beta: string | undefined }): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'anthropic-version': client.version || DEFAULT_ANTHROPIC_VERSION,
    'x-api-key': provider.credential() ?? '',
    'user-agent': 'ai-gateway',
  };
  if (client.beta) headers['anthropic-beta'] = client.beta;
  return headers;
}

/** Anthropic paths carry /v1; base URLs are accepted with or without it. */
export const anthropicUrl = (baseUrl: string, path: string): string => joinUrl(baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''), path);
