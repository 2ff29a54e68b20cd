// MiniMax video v2 (H3): POST /v2/video_generation with `content` items, GET /v2/query/video_generation/{id}.
// Our reference_images become content items with role `reference_image` (at most 9); `watermark`
// is H3's `aigc_watermark`. H3 has no sound switch. DELETE /v2/video_generation/{id} cancels a
// queued task at no charge (and deletes a finished one's record: the domain polls first and only
// cancels a task MiniMax still reports queued). Its `content.url` is signed afresh by each query.
import { asId, asRecord, asString, callJson } from '../json-http.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoAssetLocation, VideoPoll } from '../video.ts';
import { locatedByPoll, refusedCancel, submittedAs } from '../video-steps.ts';
import { minimaxStatusRefusal, minimaxSubmitRefusal } from './errors.ts';

const STATUS: Record<string, VideoPoll['status']> = {
  queued: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'failed',
};

/** Tasks can be queried for 7 days, and each query signs a fresh URL. */
const QUERYABLE_S = 7 * 24 * 3600;

export function minimaxBody(upstreamModel: string, request: NormalisedVideoRequest): Record<string, unknown> {
  const references = request.reference_images.slice(0, 9).map((ref) => ({ type: 'image_url', image_url: { url: ref.url }, role: 'reference_image' }));
  return {
    model: upstreamModel,
    content: [...request.content, ...references],
    resolution: request.resolution,
    duration: request.seconds,
    ...(request.ratio ? { ratio: request.ratio } : {}),
    ...(request.watermark === null ? {} : { aigc_watermark: request.watermark }),
  };
}

export function parseMiniMaxTask(task: Record<string, unknown>): VideoPoll {
  const upstreamStatus = String(task.status ?? '');
  const usage = asRecord(task.usage);
  const error = asRecord(task.error);
  const output = usage.output_seconds ?? task.duration;
  return {
    status: STATUS[upstreamStatus] ?? 'unknown',
    upstreamStatus,
    progress: upstreamStatus === 'succeeded' ? 100 : null,
    deliveredSeconds: typeof output === 'number' || typeof output === 'string' ? output : undefined,
    deliveredResolution: asString(task.resolution),
    assetUrl: asString(asRecord(task.content).url),
    expiresAt: upstreamStatus === 'succeeded' && typeof task.created_at === 'number' ? task.created_at + QUERYABLE_S : null,
    error:
      error.code !== undefined
        ? { code: String(error.code), message: String(error.message ?? '') }
        : upstreamStatus === 'expired'
          ? { code: 'expired', message: 'The provider expired the task before it ran; nothing was charged.' }
          : undefined,
    raw: task,
  };
}

const queryPath = (upstreamId: string) => `/v2/query/video_generation/${encodeURIComponent(upstreamId)}`;

export const minimaxAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const answer = await callJson(provider, 'POST', '/v2/video_generation', minimaxBody(upstreamModel, request));
    if (answer instanceof UpstreamError) return minimaxSubmitRefusal(answer);
    const code = asRecord(answer.body.base_resp).status_code;
    if (typeof code === 'number' && code !== 0) return minimaxStatusRefusal(code, String(asRecord(answer.body.base_resp).status_msg ?? ''));
    return submittedAs(asId(answer.body.task_id), answer.status);
  },
  async poll(provider, upstreamId) {
    const answer = await callJson(provider, 'GET', queryPath(upstreamId));
    return answer instanceof UpstreamError ? answer : parseMiniMaxTask(asRecord(answer.body.task));
  },
  async cancel(provider, upstreamId) {
    // 200 {task_id, action: "cancelled"} for a queued task; a running or cancelled one is a 400.
    const answer = await callJson(provider, 'DELETE', `/v2/video_generation/${encodeURIComponent(upstreamId)}`);
    if (answer instanceof UpstreamError) return refusedCancel(answer);
    return answer.body.action === 'cancelled' ? 'cancelled' : 'refused';
  },
  variants: ['video'],
  async locate(provider, upstreamId): Promise<VideoAssetLocation | 'gone' | UpstreamError> {
    // Each query signs a fresh content.url; an unknown or too old task is `invalid task_id` (400).
    return locatedByPoll(await this.poll(provider, upstreamId), [404, 400]);
  },
};
