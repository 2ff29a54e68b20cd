// OpenAI videos (Sora): POST /v1/videos, GET /v1/videos/{id}, and GET .../content as delivery
// proof, since the video object carries no URL.
import { asRecord, asString, callJson } from '../json-http.ts';
import { UpstreamError } from '../types.ts';
import type { NormalisedVideoRequest, VideoAdapter, VideoPoll } from '../video.ts';

const STATUS: Record<string, VideoPoll['status']> = { queued: 'queued', in_progress: 'in_progress', completed: 'completed', failed: 'failed' };
const SIZES: Record<string, [number, number]> = { '720p': [1280, 720], '1080p': [1920, 1080] };

/** Resolution tier and ratio -> Sora's `size` ("1280x720"; portrait when the ratio is taller than wide). */
export function soraSize(resolution: string, ratio: string | null): string {
  const [w, h] = SIZES[resolution] ?? [1280, 720];
  const [rw, rh] = (ratio ?? '16:9').split(':').map(Number);
  return rw !== undefined && rh !== undefined && rh > rw ? `${h}x${w}` : `${w}x${h}`;
}

/** "1920x1080" -> "1080p": the tier is named by the shorter side. */
export function tierOfSize(size: unknown): string | undefined {
  const match = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  return match ? `${Math.min(Number(match[1]), Number(match[2]))}p` : undefined;
}

export function soraBody(upstreamModel: string, request: NormalisedVideoRequest): Record<string, unknown> {
  const prompt = request.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { model: upstreamModel, prompt, seconds: String(request.seconds), size: soraSize(request.resolution, request.ratio) };
}

export const openaiVideosAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const answer = await callJson(provider, 'POST', '/v1/videos', soraBody(upstreamModel, request));
    if (answer instanceof UpstreamError) return answer;
    const id = asString(answer.body.id);
    return id ? { upstreamId: id } : new UpstreamError('protocol', false, answer.status);
  },
  async poll(provider, upstreamId) {
    const path = `/v1/videos/${encodeURIComponent(upstreamId)}`;
    const answer = await callJson(provider, 'GET', path);
    if (answer instanceof UpstreamError) return answer;
    const body = answer.body;
    const upstreamStatus = String(body.status ?? '');
    const status = STATUS[upstreamStatus] ?? 'unknown';
    const error = asRecord(body.error);
    let deliveryConfirmed = false;
    if (status === 'completed') {
      const content = await callJson(provider, 'GET', `${path}/content`);
      if (content instanceof UpstreamError && (content.status === undefined || content.status >= 500 || content.status === 429)) return content; // retry later
      deliveryConfirmed = !(content instanceof UpstreamError);
    }
    return {
      status,
      upstreamStatus,
      progress: typeof body.progress === 'number' ? body.progress : null,
      deliveredSeconds: typeof body.seconds === 'string' || typeof body.seconds === 'number' ? body.seconds : undefined,
      deliveredResolution: tierOfSize(body.size),
      assetUrl: undefined,
      deliveryConfirmed,
      error: asString(error.code) ? { code: String(error.code), message: String(error.message ?? '') } : undefined,
      raw: body,
    };
  },
  // Sora cannot cancel a task; the catalogue marks its plans not cancellable.
  cancel: async () => 'refused',
};
