// OpenAI videos (and compatible providers): POST /videos, GET /videos/{id}; the base URL ends in
// /v1. The video object carries no URL: a `completed` status with `seconds` and `size` is the
// delivery (the bytes are fetched from GET /videos/{id}/content only when a customer downloads).
import { tierOfSize } from '../../catalogue/video-protocols.ts';
import { joinUrl } from '../http.ts';
import { asId, asRecord, asString, callJson } from '../json-http.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoPoll } from '../video.ts';
import { submittedAs } from '../video-steps.ts';
import { openaiVideosSubmitRefusal } from './errors.ts';

const STATUS: Record<string, VideoPoll['status']> = { queued: 'queued', in_progress: 'in_progress', completed: 'completed', failed: 'failed' };
const SIZES: Record<string, [number, number]> = { '720p': [1280, 720], '1024p': [1792, 1024] };

/** Older tasks (accepted before `size` was kept): tier and ratio -> a size, portrait when taller than wide. */
export function soraSize(resolution: string, ratio: string | null): string {
  const [w, h] = SIZES[resolution] ?? [1280, 720];
  const [rw, rh] = (ratio ?? '16:9').split(':').map(Number);
  return rw !== undefined && rh !== undefined && rh > rw ? `${h}x${w}` : `${w}x${h}`;
}

export function soraBody(upstreamModel: string, request: NormalisedVideoRequest): Record<string, unknown> {
  const prompt = request.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  const image = request.content.find((c) => c.type === 'image_url')?.image_url?.url;
  return {
    model: upstreamModel,
    prompt,
    seconds: String(request.seconds),
    size: request.size ?? soraSize(request.resolution, request.ratio),
    ...(image ? { input_reference: { image_url: image } } : {}),
  };
}

export function parseVideo(body: Record<string, unknown>): VideoPoll {
  const upstreamStatus = String(body.status ?? '');
  const status = STATUS[upstreamStatus] ?? 'unknown';
  const error = asRecord(body.error);
  return {
    status,
    upstreamStatus,
    progress: typeof body.progress === 'number' ? Math.round(body.progress) : null,
    deliveredSeconds: typeof body.seconds === 'string' || typeof body.seconds === 'number' ? body.seconds : undefined,
    deliveredResolution: tierOfSize(body.size),
    assetUrl: undefined,
    deliveryConfirmed: status === 'completed',
    expiresAt: typeof body.expires_at === 'number' ? body.expires_at : null,
    error: asString(error.code) ? { code: String(error.code), message: String(error.message ?? '') } : undefined,
    raw: body,
  };
}

export const openaiVideosAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const answer = await callJson(provider, 'POST', '/videos', soraBody(upstreamModel, request));
    if (answer instanceof UpstreamError) return openaiVideosSubmitRefusal(answer);
    return submittedAs(asId(answer.body.id), answer.status);
  },
  async poll(provider, upstreamId) {
    const answer = await callJson(provider, 'GET', `/videos/${encodeURIComponent(upstreamId)}`);
    return answer instanceof UpstreamError ? answer : parseVideo(answer.body);
  },
  // OpenAI videos cannot be cancelled; the catalogue marks their plans not cancellable.
  cancel: async () => 'refused',
  variants: ['video', 'thumbnail', 'spritesheet'],
  // The provider's own endpoint answers the bytes, with our credential; a gone video answers 404.
  locate: async (provider, upstreamId, variant) =>
    provider.baseUrl
      ? { url: joinUrl(provider.baseUrl, `/videos/${encodeURIComponent(upstreamId)}/content?variant=${variant}`), withCredential: true }
      : new UpstreamError('connect', true),
};
