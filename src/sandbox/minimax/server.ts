// A simulated MiniMax video v2 (H3) API: POST /v2/video_generation, GET /v2/query/video_generation/{id},
// DELETE /v2/video_generation/{id} (cancels a queued task, deletes a finished one's record, refuses
// a running or cancelled one with a 400).
// Like the real API: exactly one text item, its resolutions, ratios and durations, errors as
// {type: "error", error: {type, message, http_code}, request_id}, and a `content.url` that is signed
// afresh by every query and expires (1 h unless `[[sim url_ttl_ms=N]]`).
import { randomBytes } from 'node:crypto';
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';

export interface MiniMaxSimulator extends Simulator {
  submissions: Array<Record<string, unknown>>;
  exchanges: Exchange[];
  /** The MP4 a client downloading this task's video should receive. */
  videoBytes(taskId: string): Buffer;
}

const TYPES: Record<number, string> = {
  400: 'bad_request_error',
  401: 'authorized_error',
  402: 'insufficient_balance_error',
  404: 'not_found_error',
  422: 'unprocessable_entity_error',
  429: 'rate_limit_error',
  500: 'server_error',
};
const minimaxError = (status: number, message: string, code: number): JsonAnswer => ({
  status,
  body: {
    type: 'error',
    error: { type: TYPES[status] ?? 'bad_request_error', message: `${message} (${code})`, http_code: String(status) },
    request_id: randomBytes(16).toString('hex'),
  },
});

const STATUSES = new Set(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired']);
const RESOLUTIONS = new Set(['480P', '768P', '1080P', '2K']);
const RATIOS = new Set(['adaptive', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16']);
const HOUR_MS = 3_600_000;

function invalid(body: Record<string, unknown>): string | undefined {
  const content = Array.isArray(body.content) ? (body.content as Array<{ type?: string; role?: string; text?: unknown }>) : [];
  const texts = content.filter((c) => c.type === 'text');
  if (texts.length !== 1 || typeof texts[0]!.text !== 'string' || !texts[0]!.text)
    return 'invalid params, content must include exactly one non-empty text item';
  if (content.filter((c) => c.role === 'reference_image').length > 9) return 'invalid params, at most 9 reference images';
  if (body.resolution !== undefined && !RESOLUTIONS.has(String(body.resolution)))
    return `invalid params, resolution ${String(body.resolution)} is not supported`;
  if (body.ratio !== undefined && !RATIOS.has(String(body.ratio))) return `invalid params, ratio ${String(body.ratio)} is not supported`;
  if (body.duration !== undefined && !(Number.isInteger(body.duration) && (body.duration as number) >= 4 && (body.duration as number) <= 15))
    return 'invalid params, duration must be an integer from 4 to 15';
  if (body.aigc_watermark !== undefined && typeof body.aigc_watermark !== 'boolean') return 'invalid params, aigc_watermark must be a boolean';
  return undefined;
}

export async function startMiniMaxSimulator(options: SimulatorOptions = {}): Promise<MiniMaxSimulator> {
  const book = createTaskBook({ ...options, idPrefix: '3' });
  const submissions: Array<Record<string, unknown>> = [];
  /** Signed URL tokens: asset and expiry. Each query mints a new one. */
  const tokens = new Map<string, { task: SimTask; expires: number }>();
  let baseUrl = '';

  const sign = (task: SimTask): string => {
    const token = randomBytes(12).toString('hex');
    if (tokens.size > 10_000) tokens.clear();
    tokens.set(token, { task, expires: Date.now() + (task.behaviour.urlTtlMs ?? HOUR_MS) });
    return `${baseUrl}/assets/${task.asset}.mp4?token=${token}`;
  };

  const view = (task: SimTask) => {
    const status = book.phase(task);
    const b = task.behaviour;
    const seconds = b.duration ?? Number(task.body.duration ?? 5);
    const images = ((task.body.content as Array<{ type?: string }>) ?? []).filter((c) => c.type === 'image_url').length;
    return {
      task: {
        id: task.id,
        model: task.body.model,
        status,
        error:
          status === 'failed'
            ? { code: '1027', message: `output video of ${String(task.body.model)} is sensitive, trace_id: ${randomBytes(16).toString('hex')}` }
            : null,
        created_at: Math.floor(task.createdAt / 1000),
        updated_at: Math.floor(Date.now() / 1000),
        ...(status === 'succeeded' && !b.noUrl ? { content: { url: sign(task) } } : {}),
        resolution: b.resolution ?? task.body.resolution ?? '768P',
        ratio: task.body.ratio ?? 'adaptive',
        ...(b.noDuration ? {} : { duration: seconds }),
        usage: status === 'succeeded' && !b.noDuration ? { total_seconds: seconds, input_seconds: 0, output_seconds: seconds, input_image_count: images } : {},
        task_type: 'generation',
        modality: 'video',
      },
    };
  };

  const server = await serveJson((req) => {
    const asset = /^\/assets\/[0-9a-f]+\.mp4$/.exec(req.path);
    if (asset && req.method === 'GET') {
      // The CDN: the token of one query, valid for a while.
      const signed = tokens.get(req.query.get('token') ?? '');
      if (!signed || !req.path.includes(signed.task.asset)) return { status: 404, body: { message: 'not found' } };
      if (signed.expires < Date.now()) return { status: 403, body: { message: 'signature expired' } };
      return assetAnswer(signed.task.asset, book.bytes(signed.task), 'video/mp4', req.headers.range, signed.task.behaviour.cutBytes);
    }
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return minimaxError(401, 'invalid api key', 1004);
    if (req.method === 'POST' && req.path === '/v2/video_generation') {
      const problem = invalid(req.body);
      if (problem) return minimaxError(400, problem, 2013);
      const task = book.add(req.body, req.body.content);
      if (task.behaviour.reject) {
        book.remove(task.id);
        return task.behaviour.reject === 429
          ? { ...minimaxError(429, 'rate limit exceeded', 1002), headers: { 'retry-after': '3' } }
          : minimaxError(task.behaviour.reject, `input of ${String(req.body.model)} is sensitive`, 1026);
      }
      submissions.push(req.body);
      return { status: 200, body: { task_id: task.id, base_resp: { status_code: 0, status_msg: 'success' } } };
    }
    const target = /^\/v2\/video_generation\/([^/]+)$/.exec(req.path);
    if (req.method === 'DELETE' && target) {
      const doomed = book.tasks.get(decodeURIComponent(target[1]!));
      if (!doomed) return minimaxError(400, 'invalid task_id', 2013);
      const status = book.phase(doomed);
      if (status === 'running' || status === 'cancelled') return minimaxError(400, `invalid params, a ${status} task cannot be cancelled or deleted`, 2013);
      if (status === 'queued') {
        book.cancel(doomed);
        return { status: 200, body: { task_id: doomed.id, action: 'cancelled', status: 'cancelled' } };
      }
      book.remove(doomed.id);
      return { status: 200, body: { task_id: doomed.id, action: 'deleted', status: 'deleted' } };
    }
    const match = /^\/v2\/query\/video_generation\/([^/]+)$/.exec(req.path);
    const task = match ? book.tasks.get(decodeURIComponent(match[1]!)) : undefined;
    if (req.method === 'GET' && task) {
      const body = view(task);
      return { status: 200, body, offContract: !STATUSES.has(body.task.status) };
    }
    return minimaxError(match ? 400 : 404, match ? 'invalid task_id' : 'not found', 2013);
  });
  baseUrl = server.baseUrl;
  return {
    ...server,
    reset() {
      server.exchanges.length = 0;
      book.clear();
      submissions.length = 0;
      tokens.clear();
    },
    submissions,
    videoBytes: (taskId) => {
      const task = book.tasks.get(taskId)!;
      return assetBytes(task.asset, book.bytes(task));
    },
  };
}
