// GET /v1/videos/{task_id}/content: a finished task's file, streamed from the provider to its
// creator through the sink. Nothing is held in memory beyond the chunk in flight, nothing is
// written to disk; the upstream URL is re-resolved on every call (supplier URLs expire), the
// client's Range is passed on, and the upstream request is aborted when the client leaves.
import type { CatalogueStore } from '../../catalogue/store.ts';
import type { Logger } from '../../logger.ts';
import { fetchAsset } from '../../providers/asset.ts';
import { UpstreamError } from '../../providers/types.ts';
import type { VideoVariant } from '../../providers/video.ts';
import { videoAdapters } from '../../providers/video-adapters.ts';
import type { Failure } from '../failure.ts';
import type { Sink } from '../sink.ts';
import { videoFailures } from './errors.ts';
import { TaskStatus } from '../../tasks/model.ts';
import type { VideoTaskRow } from './kind.ts';

export interface ContentRequest {
  variant: VideoVariant;
  /** The client's Range header, passed on as it is when it is a byte range. */
  range: string | undefined;
}

/** Headers of the upstream's answer the client gets. */
const PASSED = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified'] as const;
const BYTE_RANGE = /^bytes=\d*-\d*(?:,\s*\d*-\d*)*$/;

function notReady(task: VideoTaskRow): Failure {
  switch (task.status) {
    case TaskStatus.Review:
      return videoFailures.contentNotAvailable('The task is held for review; its video can be downloaded once it is settled.');
    case TaskStatus.Failed:
    case TaskStatus.Cancelled:
      return videoFailures.contentNotAvailable(`The task ${task.status === TaskStatus.Failed ? 'failed' : 'was cancelled'}; there is no video to download.`);
    default:
      return videoFailures.contentNotAvailable('The video is not ready yet: download it once the task is completed.');
  }
}

const GONE = 'The provider no longer serves this video (its files expire after a while); nothing more can be downloaded.';

function refused(error: UpstreamError, what: string): Failure {
  if (error.status === 429) return videoFailures.rateLimited(error.headers);
  if (error.status === 404 || error.status === 403 || error.status === 410) return videoFailures.contentNotAvailable(GONE);
  if (error.status === 416) return videoFailures.rangeNotSatisfiable(error.headers['content-range']);
  // The URL led into the gateway's own network (loopback, private, link-local...): refused at
  // connect time and logged for the operator with the provider and the address class.
  if (error.kind === 'egress') return videoFailures.upstreamUnreachable(`it gave a ${what} location the gateway does not fetch.`);
  if (error.kind === 'protocol' && error.status === undefined)
    return videoFailures.upstreamUnreachable(`it gave a download URL the gateway does not fetch (${what}).`);
  return videoFailures.upstreamUnreachable(`the ${what} could not be fetched; retry later.`);
}

export async function streamContent(
  deps: { catalogue: CatalogueStore; logger: Logger },
  task: VideoTaskRow,
  request: ContentRequest,
  sink: Sink,
): Promise<{ bytes: number } | Failure> {
  if (task.status !== TaskStatus.Completed) return notReady(task);
  const provider = deps.catalogue.current().providers.get(task.provider_id);
  const adapter = provider ? videoAdapters[provider.protocol] : undefined;
  if (!provider?.baseUrl || !adapter || !task.upstream_task_id) return videoFailures.providerUnavailable('the video cannot be downloaded now.');
  if (!adapter.variants.includes(request.variant))
    return videoFailures.invalid('variant', `${task.model_id} offers the variants ${adapter.variants.join(', ')}, not ${request.variant}.`);

  const location = await adapter.locate(provider, task.upstream_task_id, request.variant);
  if (location === 'gone') return videoFailures.contentNotAvailable(GONE);
  if (location instanceof UpstreamError) return refused(location, 'task');
  const range = request.range && request.range.length <= 200 && BYTE_RANGE.test(request.range) ? request.range : undefined;
  const response = await fetchAsset(provider, location, { ...(range ? { range } : {}), signal: sink.signal });
  if (response instanceof UpstreamError) {
    if (response.kind === 'aborted') return { bytes: 0 }; // the client left first: nobody to answer
    return refused(response, 'file');
  }
  if (response.status !== 200 && response.status !== 206) {
    response.body.destroy(); // a redirect (not followed) or another answer without the file
    deps.logger.warn({ video_task_id: task.id, status: response.status }, 'video download: unexpected upstream answer');
    return videoFailures.upstreamUnreachable('it did not answer with the file.');
  }

  const headers: Record<string, string> = { 'cache-control': 'private, no-store' };
  for (const name of PASSED) {
    const value = response.headers[name];
    if (value !== undefined) headers[name] = String(Array.isArray(value) ? value[0] : value);
  }
  headers['content-type'] ??= 'application/octet-stream';
  sink.start(response.status, headers);
  let bytes = 0;
  try {
    // One chunk at a time: the next is read only once the client took this one (back-pressure
    // reaches the upstream through TCP), and the client leaving destroys the upstream body.
    for await (const chunk of response.body) {
      if (sink.closed) break;
      bytes += (chunk as Buffer).length;
      await sink.write(chunk as Buffer);
    }
  } catch (error) {
    if (!sink.closed) {
      deps.logger.warn({ video_task_id: task.id, err: error, bytes }, 'video download: the upstream broke off; cutting the response');
      sink.abort();
    }
    return { bytes };
  } finally {
    response.body.destroy();
  }
  sink.end();
  return { bytes };
}
