// A simulated OpenAI videos API under /v1: POST/GET/DELETE /videos, and GET /videos/{id}/content
// answering the bytes (video/mp4, or image/webp for the thumbnail and spritesheet), with Range,
// as the real endpoint does. Refusals take OpenAI's {error: {message, type, param, code}} shape.
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';

export interface OpenAIVideosSimulator extends Simulator {
  submissions: Array<Record<string, unknown>>;
  exchanges: Exchange[];
  /** The bytes a client downloading this video's variant should receive. */
  contentBytes(videoId: string, variant?: string): Buffer;
}

const openaiError = (status: number, message: string, param: string | null = null, code: string | null = null): JsonAnswer => ({
  status,
  body: { error: { message, type: status === 429 ? 'rate_limit_error' : 'invalid_request_error', param, code } },
});
const STATUS: Record<string, string> = { queued: 'queued', running: 'in_progress', succeeded: 'completed', failed: 'failed' };
const SECONDS = new Set(['4', '8', '12']);
const SIZES = new Set(['720x1280', '1280x720', '1024x1792', '1792x1024']);
const VARIANTS: Record<string, { type: string; share: number }> = {
  video: { type: 'video/mp4', share: 1 },
  thumbnail: { type: 'image/webp', share: 0.05 },
  spritesheet: { type: 'image/webp', share: 0.2 },
};
const HOUR = 3600;

/** Bytes of a variant: the thumbnail and spritesheet are smaller files of their own. */
const variantSize = (bytes: number, variant: string) => Math.max(1, Math.floor(bytes * VARIANTS[variant]!.share));

/** A video object; `[[sim no_duration]]` and unknown statuses break the contract on purpose. */
const videoAnswer = (body: Record<string, unknown>): JsonAnswer => ({
  status: 200,
  body,
  offContract: !('seconds' in body) || !Object.values(STATUS).includes(String(body.status)),
});

function invalid(body: Record<string, unknown>): [string, string] | undefined {
  if (typeof body.prompt !== 'string' || !body.prompt) return ['prompt', "Missing required parameter: 'prompt'."];
  if (body.seconds !== undefined && !SECONDS.has(String(body.seconds)))
    return ['seconds', `Invalid value: '${String(body.seconds)}'. Supported values are: '4', '8', and '12'.`];
  if (body.size !== undefined && !SIZES.has(String(body.size)))
    return ['size', `Invalid value: '${String(body.size)}'. Supported values are: '720x1280', '1280x720', '1024x1792', and '1792x1024'.`];
  const reference = body.input_reference as Record<string, unknown> | undefined;
  if (reference !== undefined && (typeof reference !== 'object' || (typeof reference.image_url !== 'string') === (typeof reference.file_id !== 'string'))) {
    return ['input_reference', 'Provide exactly one of image_url or file_id.'];
  }
  return undefined;
}

export async function startOpenAIVideosSimulator(options: SimulatorOptions = {}): Promise<OpenAIVideosSimulator> {
  const book = createTaskBook({ ...options, idPrefix: 'video_' });
  const submissions: Array<Record<string, unknown>> = [];

  const view = (task: SimTask) => {
    const phase = book.phase(task);
    const b = task.behaviour;
    const status = STATUS[phase] ?? phase;
    const completedAt = Math.floor(book.doneAt(task) / 1000);
    return {
      id: task.id,
      object: 'video',
      model: task.body.model ?? 'sora-2',
      status,
      progress: status === 'completed' ? 100 : status === 'in_progress' ? 50 : 0,
      created_at: Math.floor(task.createdAt / 1000),
      completed_at: status === 'completed' ? completedAt : null,
      expires_at: status === 'completed' ? completedAt + HOUR : null,
      prompt: task.body.prompt,
      ...(b.noDuration ? {} : { seconds: String(b.duration ?? task.body.seconds ?? '4') }),
      size: b.size ?? String(task.body.size ?? '720x1280'),
      remixed_from_video_id: null,
      error:
        status === 'failed'
          ? { code: 'moderation_blocked', message: `The video of ${String(task.body.model)} was blocked by moderation (request req_${task.asset}).` }
          : null,
    };
  };

  const server = await serveJson(
    (req) => {
      if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return openaiError(401, 'You did not provide an API key.', null, 'invalid_api_key');
      const match = /^\/videos(?:\/([^/]+))?(\/content)?$/.exec(req.path);
      if (!match) return openaiError(404, `Invalid URL (${req.method} /v1${req.path})`);
      const [, id, content] = match;
      if (req.method === 'POST' && !id) {
        const problem = invalid(req.body);
        if (problem) return openaiError(400, problem[1], problem[0]);
        const task = book.add(req.body, req.body.prompt);
        if (task.behaviour.reject) {
          book.remove(task.id);
          return task.behaviour.reject === 429
            ? {
                ...openaiError(429, 'Rate limit reached for videos per minute.', null, 'rate_limit_exceeded'),
                headers: { 'retry-after': '5', 'x-ratelimit-remaining-requests': '0' },
              }
            : openaiError(task.behaviour.reject, 'Your request was rejected by the safety system.', 'prompt', 'moderation_blocked');
        }
        submissions.push(req.body);
        return videoAnswer(view(task));
      }
      const task = id ? book.tasks.get(decodeURIComponent(id)) : undefined;
      if (!task) return openaiError(404, `Video with id '${id}' not found.`, 'video_id', 'not_found');
      if (req.method === 'GET' && content) {
        const variant = req.query.get('variant') ?? 'video';
        if (!VARIANTS[variant]) return openaiError(400, `Invalid value for 'variant': '${variant}'.`, 'variant');
        const ready = book.phase(task) === 'succeeded' && !task.behaviour.noUrl;
        if (!ready) return openaiError(404, 'Video content is not available.', 'video_id', 'not_found');
        return assetAnswer(
          `${task.asset}:${variant}`,
          variantSize(book.bytes(task), variant),
          VARIANTS[variant]!.type,
          req.headers.range,
          task.behaviour.cutBytes,
        );
      }
      if (req.method === 'GET') return videoAnswer(view(task));
      if (req.method === 'DELETE') {
        if (!['succeeded', 'failed'].includes(book.phase(task))) return openaiError(400, 'Only completed or failed videos can be deleted.', 'video_id');
        book.remove(task.id);
        return { status: 200, body: { id: task.id, object: 'video.deleted', deleted: true } };
      }
      return openaiError(405, 'Method not allowed.');
    },
    { basePath: '/v1' },
  );
  return {
    ...server,
    reset() {
      server.exchanges.length = 0;
      book.clear();
      submissions.length = 0;
    },
    submissions,
    contentBytes: (videoId, variant = 'video') => {
      const task = book.tasks.get(videoId)!;
      return assetBytes(`${task.asset}:${variant}`, variantSize(book.bytes(task), variant));
    },
  };
}
