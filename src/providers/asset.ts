// A finished video's bytes, fetched for a customer's download: from the provider's own API (its
// /content endpoint, with our credential) or from the supplier CDN URL its task answer gave
// (without any credential). Fetching a supplier CDN server-side is deliberate: the URL comes from
// the provider's authenticated answer, not from the customer. It must be https (http only when the
// provider's own base URL is http: a local or test provider), it must not lead into the gateway's
// own network (egress-guard.ts, applied by the provider's got instance), and redirects are not
// followed: a 3xx is handed back as an answer the caller refuses.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ResolvedProvider } from '../catalogue/types.ts';
import { taskStream, upstreamErrorOf } from './task-client.ts';
import { CLIENT_ACTIONABLE_HEADERS, UpstreamError, type UpstreamResponse } from './types.ts';
import type { VideoAssetLocation } from './video.ts';

export function assetUrlAllowed(provider: ResolvedProvider, url: string): boolean {
  if (url.startsWith('https://')) return true;
  return url.startsWith('http://') && Boolean(provider.baseUrl?.startsWith('http://'));
}

/** Headers of a refusal the caller may act on: retry-after, rate limits, and a 416's content-range. */
const KEPT_ON_ERROR = (name: string) => CLIENT_ACTIONABLE_HEADERS.test(name) || name === 'content-range';

/**
 * The file as a stream (got.stream: back-pressure reaches the upstream through TCP, and the
 * caller's signal aborting destroys the upstream request), or the refusal as an UpstreamError.
 */
export async function fetchAsset(
  provider: ResolvedProvider,
  location: VideoAssetLocation,
  options: { range?: string; signal: AbortSignal },
): Promise<UpstreamResponse | UpstreamError> {
  if (!assetUrlAllowed(provider, location.url)) return new UpstreamError('protocol', false);
  let url: URL;
  try {
    url = new URL(location.url);
  } catch {
    return new UpstreamError('protocol', false);
  }
  const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'identity' };
  if (options.range) headers.range = options.range;
  if (location.bearer) headers.authorization = `Bearer ${location.bearer}`;
  else if (location.withCredential) headers.authorization = `Bearer ${provider.credential() ?? ''}`;
  if (options.signal.aborted) return new UpstreamError('aborted', false);
  const body = taskStream(provider, url, { headers, signal: options.signal });
  const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders } | UpstreamError>((resolve) => {
    body.once('response', (response: { statusCode: number; headers: IncomingHttpHeaders }) =>
      resolve({ status: response.statusCode, headers: response.headers }),
    );
    body.once('error', (error) => resolve(upstreamErrorOf(error)));
  });
  if (answer instanceof UpstreamError) {
    body.destroy();
    return answer;
  }
  body.on('error', () => {}); // a later break reaches the reader through the iteration, not as an unhandled event
  const upstreamRequestId = first(answer.headers['request-id']) ?? first(answer.headers['x-request-id']);
  if (answer.status >= 400) {
    body.destroy();
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (KEPT_ON_ERROR(name) && value !== undefined) kept[name] = String(first(value));
    return new UpstreamError('status', answer.status >= 500 || answer.status === 429, answer.status, undefined, upstreamRequestId, kept);
  }
  return { status: answer.status, headers: answer.headers, body: body as unknown as Readable, upstreamRequestId };
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
