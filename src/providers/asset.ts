// A finished video's bytes, fetched for a customer's download: from the provider's own API (its
// /content endpoint, with our credential) or from the supplier CDN URL its task answer gave
// (without any credential). Fetching a supplier CDN server-side is deliberate: the URL comes from
// the provider's authenticated answer, not from the customer. It must be https (http only when the
// provider's own base URL is http: a local or test provider), and redirects are not followed: a
// 3xx is handed back as an answer the caller refuses.
import { callUpstream } from './http.ts';
import type { ResolvedProvider } from './registry.ts';
import { UpstreamError, type UpstreamResponse } from './types.ts';
import type { VideoAssetLocation } from './video.ts';

export function assetUrlAllowed(provider: ResolvedProvider, url: string): boolean {
  if (url.startsWith('https://')) return true;
  return url.startsWith('http://') && Boolean(provider.baseUrl?.startsWith('http://'));
}

export async function fetchAsset(
  provider: ResolvedProvider,
  location: VideoAssetLocation,
  options: { range?: string; signal: AbortSignal },
): Promise<UpstreamResponse | UpstreamError> {
  if (!assetUrlAllowed(provider, location.url)) return new UpstreamError('protocol', false);
  const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'identity' };
  if (options.range) headers.range = options.range;
  if (location.withCredential) headers.authorization = `Bearer ${provider.credential() ?? ''}`;
  return callUpstream({
    url: location.url,
    method: 'GET',
    headers,
    signal: options.signal,
    connectMs: provider.timeouts.connect_ms,
    firstByteMs: provider.timeouts.first_byte_ms,
    idleMs: provider.timeouts.idle_ms,
    errorHeaders: /^content-range$/,
  });
}
