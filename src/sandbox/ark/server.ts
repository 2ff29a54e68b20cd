// A stateful simulated Volcengine Ark content-generation API: tasks move queued -> running ->
// succeeded over time; DELETE follows Ark's matrix (cancel only while queued). Like the real API it
// refuses what it documents as invalid (one text item, its resolutions and ratios), answers errors
// as {error: {code, message, param, type}}, and serves the MP4 from a URL that expires (24 h unless
// `[[sim url_ttl_ms=N]]`), as Ark's `video_url` does. An account limit (`accountLimit`, tests) on the
// tasks queued or running at once refuses a submission past it as Ark refuses an account at its
// cap of tasks: 429 TooManyRequests, code QuotaExceeded.
import { randomBytes } from 'node:crypto';
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';

export interface ArkSimulator extends Simulator {
  tasks: Map<string, SimTask>;
  submissions: Array<Record<string, unknown>>;
  exchanges: Exchange[];
  /** The MP4 a client downloading this task's video should receive. */
  videoBytes(taskId: string): Buffer;
  /** Tests: the `video_url` to answer for a task instead of this simulator's own (a provider naming another place). */
  videoUrls: Map<string, string>;
  /** Tests: the most tasks the account may have queued or running at once (undefined: no limit). */
  accountLimit: number | undefined;
  /** Tasks queued or running now. */
  active(): number;
  /** The most tasks that were ever queued or running at once. */
  readonly peakActive: number;
  /** Submissions refused because the account was at its limit. */
  readonly limitRefusals: number;
}

const TYPES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalServiceError',
};
const requestId = () => `0217${Date.now()}${randomBytes(8).toString('hex')}`;
const arkError = (status: number, code: string, message: string, param?: string): JsonAnswer => ({
  status,
  body: { error: { code, message: `${message} Request id: ${requestId()}`, ...(param ? { param } : {}), type: TYPES[status] ?? 'BadRequest' } },
});

const STATUSES = new Set(['queued', 'running', 'cancelled', 'succeeded', 'failed', 'expired']);
const RESOLUTIONS = new Set(['480p', '720p', '1080p']);
const RATIOS = new Set(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive']);
const DAY_MS = 24 * 3_600_000;

/** What Ark's strict body validation would refuse, as [param, message]. */
function invalid(body: Record<string, unknown>): [string, string] | undefined {
  if (typeof body.model !== 'string' || !Array.isArray(body.content)) return ['content', 'The parameter `model` and `content` are required.'];
  if ((body.content as Array<{ type?: unknown }>).filter((c) => c?.type === 'text').length > 1)
    return ['content', 'The request may carry only one text content item.'];
  if (body.resolution !== undefined && !RESOLUTIONS.has(String(body.resolution)))
    return ['resolution', `The parameter resolution specified in the request is not valid: ${String(body.resolution)}.`];
  if (body.ratio !== undefined && !RATIOS.has(String(body.ratio)))
    return ['ratio', `The parameter ratio specified in the request is not valid: ${String(body.ratio)}.`];
  if (body.duration !== undefined && !Number.isInteger(body.duration)) return ['duration', 'The parameter duration must be an integer.'];
  for (const flag of ['watermark', 'generate_audio', 'camera_fixed', 'return_last_frame']) {
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') return [flag, `The parameter ${flag} must be a boolean.`];
  }
  return undefined;
}

export async function startArkSimulator(options: SimulatorOptions & { accountLimit?: number } = {}): Promise<ArkSimulator> {
  const book = createTaskBook({ ...options, idPrefix: 'cgt-' });
  const account = { limit: options.accountLimit, peak: 0, refusals: 0 };
  const active = () => [...book.tasks.values()].filter((t) => ['queued', 'running'].includes(book.phase(t))).length;
  const { tasks } = book;
  const submissions: Array<Record<string, unknown>> = [];
  const stateOf = book.phase.bind(book);
  let baseUrl = '';
  const videoUrls = new Map<string, string>();

  const view = (task: SimTask) => {
    const status = stateOf(task);
    const b = task.behaviour;
    const seconds = b.duration ?? Number(task.body.duration ?? 5);
    const resolution = b.resolution ?? String(task.body.resolution ?? '720p');
    const expires = book.doneAt(task) + (b.urlTtlMs ?? DAY_MS);
    return {
      id: task.id,
      model: task.body.model,
      status,
      ...(status === 'succeeded' && !b.noUrl
        ? { content: { video_url: videoUrls.get(task.id) ?? `${baseUrl}/assets/${task.asset}.mp4?X-Expires=${expires}` } }
        : {}),
      ...(status === 'succeeded' ? { usage: { completion_tokens: 108900, total_tokens: 108900 } } : {}),
      error:
        status === 'failed'
          ? {
              code: 'OutputVideoSensitiveContentDetected',
              message: `The video generated by ${String(task.body.model)} may contain sensitive content. Request id: ${requestId()}`,
            }
          : null,
      created_at: Math.floor(task.createdAt / 1000),
      updated_at: Math.floor(Date.now() / 1000),
      seed: 42,
      resolution,
      ratio: task.body.ratio ?? '16:9',
      ...(b.noDuration ? {} : { duration: seconds }),
      framespersecond: 24,
      ...(typeof task.body.generate_audio === 'boolean' ? { generate_audio: task.body.generate_audio } : {}),
    };
  };

  const server = await serveJson((req) => {
    const asset = /^\/assets\/([0-9a-f]+)\.mp4$/.exec(req.path);
    if (asset && req.method === 'GET') {
      // The supplier CDN: no credential, an expiring signed URL.
      const task = book.byAsset(asset[1]!);
      if (!task || stateOf(task) !== 'succeeded') return { status: 404, body: { message: 'NoSuchKey' } };
      if (Number(req.query.get('X-Expires')) < Date.now()) return { status: 403, body: { message: 'AccessDenied: Request has expired' } };
      return assetAnswer(task.asset, book.bytes(task), 'video/mp4', req.headers.range, task.behaviour.cutBytes);
    }
    if (!String(req.headers.authorization ?? '').startsWith('Bearer '))
      return arkError(401, 'AuthenticationError', 'The API key in the request is missing or invalid.');
    const match = /^\/contents\/generations\/tasks(?:\/([^/]+))?$/.exec(req.path);
    if (!match) return arkError(404, 'InvalidEndpoint.NotFound', 'The requested endpoint does not exist.');
    const id = match[1] ? decodeURIComponent(match[1]) : undefined;
    if (req.method === 'POST' && !id) {
      const problem = invalid(req.body);
      if (problem) return arkError(400, 'InvalidParameter', problem[1], problem[0]);
      if (account.limit !== undefined && active() >= account.limit) {
        account.refusals++;
        return arkError(429, 'QuotaExceeded', 'The request has exceeded the quota of tasks your account may run at once.');
      }
      const task = book.add(req.body, req.body.content);
      const reject = task.behaviour.reject;
      if (reject === 429) {
        book.remove(task.id);
        return {
          ...arkError(429, 'RateLimitExceeded.EndpointRPMExceeded', 'The request rate of the endpoint exceeded its limit.'),
          headers: { 'retry-after': '7', 'x-ratelimit-limit-requests': '600', 'x-ratelimit-remaining-requests': '0' },
        };
      }
      if (reject) {
        book.remove(task.id);
        return arkError(
          reject,
          'InputTextSensitiveContentDetected',
          `The request to ${String(req.body.model)} failed because the input text may contain sensitive information.`,
        );
      }
      submissions.push(req.body);
      account.peak = Math.max(account.peak, active());
      return { status: 200, body: { id: task.id } };
    }
    const task = id ? tasks.get(id) : undefined;
    if (!task) return arkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`);
    if (req.method === 'GET') {
      const body = view(task);
      return { status: 200, body, offContract: !STATUSES.has(body.status) };
    }
    if (req.method === 'DELETE') {
      const status = stateOf(task);
      if (status === 'queued') {
        book.cancel(task);
        return { status: 200, body: {} };
      }
      if (status === 'running' || status === 'cancelled') return arkError(400, 'InvalidParameter', `A ${status} task cannot be cancelled or deleted.`, 'id');
      book.remove(task.id); // finished tasks: the record is deleted, and their files
      return { status: 200, body: {} };
    }
    return arkError(400, 'InvalidParameter', 'The method is not allowed.');
  });
  baseUrl = server.baseUrl;
  return {
    ...server,
    reset() {
      server.exchanges.length = 0;
      book.clear();
      submissions.length = 0;
      videoUrls.clear();
      Object.assign(account, { limit: options.accountLimit, peak: 0, refusals: 0 });
    },
    tasks,
    submissions,
    videoUrls,
    get accountLimit() {
      return account.limit;
    },
    set accountLimit(limit: number | undefined) {
      account.limit = limit;
    },
    active,
    get peakActive() {
      return account.peak;
    },
    get limitRefusals() {
      return account.refusals;
    },
    videoBytes: (taskId) => {
      const task = tasks.get(taskId)!;
      return assetBytes(task.asset, book.bytes(task));
    },
  };
}
