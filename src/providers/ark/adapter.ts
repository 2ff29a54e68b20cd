// Volcengine Ark (Seedance) content-generation tasks: POST/GET/DELETE /contents/generations/tasks.
// Our reference_images become image items with role `reference_image`; `video_url` is the MP4 for
// 24 hours after completion (the task is re-queried for it on each download).
import { asId, asRecord, asString, callJson } from '../json-http.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoAssetLocation, VideoPoll } from '../video.ts';
import { confirmedCancel, locatedByPoll, submittedAs } from '../video-steps.ts';
import { arkSubmitRefusal } from './errors.ts';

const STATUS: Record<string, VideoPoll['status']> = {
  queued: 'queued',
  pending: 'queued',
  running: 'in_progress',
  processing: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  expired: 'failed',
  cancelled: 'cancelled',
};

/** How long Ark's `video_url` stays valid. */
const URL_LIFETIME_S = 24 * 3600;

export function arkBody(upstreamModel: string, request: NormalisedVideoRequest): Record<string, unknown> {
  const references = request.reference_images.map((ref) => ({ type: 'image_url', image_url: { url: ref.url }, role: 'reference_image' }));
  return {
    model: upstreamModel,
    content: [...request.content, ...references],
    resolution: request.resolution,
    ...(request.ratio ? { ratio: request.ratio } : {}),
    duration: request.seconds,
    ...(request.watermark === null ? {} : { watermark: request.watermark }),
    ...(request.generate_audio === null ? {} : { generate_audio: request.generate_audio }),
  };
}

export function parseArkTask(body: Record<string, unknown>): VideoPoll {
  const upstreamStatus = String(body.status ?? '');
  const error = asRecord(body.error);
  const finished = typeof body.updated_at === 'number' ? body.updated_at : undefined;
  return {
    status: STATUS[upstreamStatus] ?? 'unknown',
    upstreamStatus,
    progress: upstreamStatus === 'succeeded' ? 100 : null,
    deliveredSeconds: typeof body.duration === 'number' || typeof body.duration === 'string' ? body.duration : undefined,
    deliveredResolution: asString(body.resolution),
    assetUrl: asString(asRecord(body.content).video_url),
    expiresAt: upstreamStatus === 'succeeded' && finished ? finished + URL_LIFETIME_S : null,
    error: asString(error.code)
      ? { code: String(error.code), message: String(error.message ?? '') }
      : upstreamStatus === 'expired'
        ? { code: 'expired', message: 'The provider expired the task before it ran; nothing was charged.' }
        : undefined,
    raw: body,
  };
}

const taskPath = (upstreamId: string) => `/contents/generations/tasks/${encodeURIComponent(upstreamId)}`;

export const arkAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const answer = await callJson(provider, 'POST', '/contents/generations/tasks', arkBody(upstreamModel, request));
    if (answer instanceof UpstreamError) return arkSubmitRefusal(answer);
    return submittedAs(asId(answer.body.id), answer.status);
  },
  async poll(provider, upstreamId) {
    const answer = await callJson(provider, 'GET', taskPath(upstreamId));
    return answer instanceof UpstreamError ? answer : parseArkTask(answer.body);
  },
  async cancel(provider, upstreamId) {
    // Ark deletes the record of a finished task on DELETE: the caller polls first and only
    // cancels a task the upstream still reports queued. A running task is refused upstream.
    return confirmedCancel(await callJson(provider, 'DELETE', taskPath(upstreamId)), () => this.poll(provider, upstreamId));
  },
  variants: ['video'],
  async locate(provider, upstreamId): Promise<VideoAssetLocation | 'gone' | UpstreamError> {
    // `video_url` is valid 24 h after completion; the task record (and so the URL) 7 days.
    return locatedByPoll(await this.poll(provider, upstreamId));
  },
};
