// Alibaba Cloud Model Studio (DashScope) Wan video tasks, the protocol of Wan 2.7 and 3.0:
//   create  POST /api/v1/services/aigc/video-generation/video-synthesis, `X-DashScope-Async: enable`
//           (DashScope refuses the call without it), answering output.task_id
//   poll    GET  /api/v1/tasks/{task_id}
//   cancel  POST /api/v1/tasks/{task_id}/cancel, only while PENDING
// Our content items become input.media entries ({type, url}): an image is the first frame unless
// its role says last_frame or reference_image, a video a reference_video, an audio a
// reference_audio; reference_images are reference_image entries. The tier goes as
// parameters.resolution ("720P"). Settled by usage (usage.ts), at the tier usage.SR metered.
import { asId, asRecord, asString, callJson } from '../json-http.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoAssetLocation, VideoContentItem, VideoPoll } from '../video.ts';
import { confirmedCancel, locatedByPoll, submittedAs } from '../video-steps.ts';
import { submitRefusal } from './errors.ts';
import { STATUS, UNKNOWN_TASK } from './status.ts';
import { readUsage } from './usage.ts';

const CREATE = '/api/v1/services/aigc/video-generation/video-synthesis';
const taskPath = (upstreamId: string) => `/api/v1/tasks/${encodeURIComponent(upstreamId)}`;
/** Task results (and their video_url) are kept 24 hours. */
const RETENTION_S = 24 * 3600;

function mediaOf(item: VideoContentItem): { type: string; url: string } {
  if (item.type === 'image_url') return { type: item.role ?? 'first_frame', url: item.image_url!.url };
  if (item.type === 'video_url') return { type: 'reference_video', url: item.video_url!.url };
  return { type: 'reference_audio', url: item.audio_url!.url };
}

export function wanBody(upstreamModel: string, request: NormalisedVideoRequest): Record<string, unknown> {
  const prompt = request.content.find((c) => c.type === 'text')?.text ?? '';
  const media = [
    ...request.content.filter((c) => c.type !== 'text').map(mediaOf),
    ...request.reference_images.map((ref) => ({ type: 'reference_image', url: ref.url })),
  ];
  return {
    model: upstreamModel,
    input: { prompt, ...(media.length ? { media } : {}) },
    parameters: {
      resolution: request.resolution.toUpperCase(),
      ...(request.ratio ? { ratio: request.ratio } : {}),
      duration: request.seconds,
      ...(request.watermark === null ? {} : { watermark: request.watermark }),
    },
  };
}

/**
 * When the finished video stops being served: the signed URL's own `Expires` (unix seconds, an
 * OSS signature), else 24 hours after end_time (DashScope's times carry no zone; they are UTC+8).
 */
export function expiryOf(videoUrl: string | undefined, endTime: unknown): number | null {
  const expires = videoUrl ? /[?&]Expires=(\d{9,11})(?:&|$)/.exec(videoUrl)?.[1] : undefined;
  if (expires) return Number(expires);
  const match = typeof endTime === 'string' ? /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)$/.exec(endTime) : null;
  const ended = match ? Date.parse(`${match[1]}T${match[2]}+08:00`) : NaN;
  return Number.isFinite(ended) ? Math.floor(ended / 1000) + RETENTION_S : null;
}

export function parseWanTask(body: Record<string, unknown>): VideoPoll {
  const output = asRecord(body.output);
  const upstreamStatus = String(output.task_status ?? '');
  const status = STATUS[upstreamStatus] ?? 'unknown';
  const usage = readUsage(asRecord(body.usage));
  const videoUrl = asString(output.video_url);
  const code = asString(output.code);
  return {
    status,
    upstreamStatus,
    progress: status === 'completed' ? 100 : null,
    deliveredSeconds: usage.seconds,
    deliveredResolution: usage.tier,
    meteredTier: true,
    ...(usage.contradiction ? { contradiction: usage.contradiction } : {}),
    assetUrl: videoUrl,
    expiresAt: status === 'completed' ? expiryOf(videoUrl, output.end_time) : null,
    error: upstreamStatus === 'UNKNOWN' ? UNKNOWN_TASK : code ? { code, message: String(output.message ?? '') } : undefined,
    // The task as DashScope answered, without its request_id (an id of ours to keep).
    raw: { output, ...(body.usage === undefined ? {} : { usage: body.usage }) },
  };
}

export const dashscopeAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const answer = await callJson(provider, 'POST', CREATE, wanBody(upstreamModel, request), { headers: { 'X-DashScope-Async': 'enable' } });
    if (answer instanceof UpstreamError) return submitRefusal(answer);
    return submittedAs(asId(asRecord(answer.body.output).task_id), answer.status);
  },
  async poll(provider, upstreamId) {
    const answer = await callJson(provider, 'GET', taskPath(upstreamId));
    return answer instanceof UpstreamError ? answer : parseWanTask(answer.body);
  },
  async cancel(provider, upstreamId) {
    // Refused (400) unless the task is PENDING; a confirmed cancel shows CANCELED at once.
    return confirmedCancel(await callJson(provider, 'POST', `${taskPath(upstreamId)}/cancel`), () => this.poll(provider, upstreamId));
  },
  variants: ['video'],
  async locate(provider, upstreamId): Promise<VideoAssetLocation | 'gone' | UpstreamError> {
    // The task (and its signed video_url) is kept 24 hours; after that it answers UNKNOWN.
    return locatedByPoll(await this.poll(provider, upstreamId));
  },
};
