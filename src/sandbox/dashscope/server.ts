// A stateful simulated DashScope (Alibaba Cloud Model Studio) video synthesis API, as Wan 2.7 and
// 3.0 answer it: tasks move PENDING -> RUNNING -> SUCCEEDED (or FAILED) over time and can be
// cancelled only while PENDING; errors are {request_id, code, message}; a create without
// `X-DashScope-Async: enable` or with values DashScope does not take is refused (checks.ts). A
// finished task carries usage (output and input video seconds, their total, the metered tier SR)
// and a video_url signed until `Expires` (24 h unless `[[sim url_ttl_ms=N]]`); a task past its
// 24-hour retention (or one `expire()` ages) answers UNKNOWN, as does an id DashScope never had.
// Prompt switches: the shared ones (task-directives.ts) and `[[sim input_seconds=N total=N sr=N
// arrears]]` (checks.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer } from '../json-server.ts';
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';
import { dashscopeDirectives, refusalOf, type DashScopeBehaviour } from './checks.ts';

export interface DashScopeSimulator extends Simulator {
  tasks: Map<string, SimTask>;
  submissions: Array<Record<string, unknown>>;
  exchanges: Exchange[];
  /** The MP4 a client downloading this task's video should receive. */
  videoBytes(taskId: string): Buffer;
  /** Ages a task past DashScope's 24-hour retention: it answers UNKNOWN and its file is gone. */
  expire(taskId: string): void;
}

const DAY_MS = 24 * 3_600_000;
const CREATE = '/api/v1/services/aigc/video-generation/video-synthesis';
const STATUS_OF: Record<string, string> = { queued: 'PENDING', running: 'RUNNING', succeeded: 'SUCCEEDED', failed: 'FAILED', cancelled: 'CANCELED' };
const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELED']);
const KNOWN = new Set([...Object.values(STATUS_OF), 'UNKNOWN']);

const dashscopeError = (status: number, code: string, message: string): JsonAnswer => ({ status, body: { request_id: randomUUID(), code, message } });
/** DashScope's times: "2026-11-26 16:30:00.123", UTC+8 with no zone. */
const cst = (ms: number) => new Date(ms + 8 * 3_600_000).toISOString().replace('T', ' ').replace('Z', '');

export async function startDashScopeSimulator(options: SimulatorOptions = {}): Promise<DashScopeSimulator> {
  const book = createTaskBook({ ...options, idPrefix: '' });
  const { tasks } = book;
  const submissions: Array<Record<string, unknown>> = [];
  const expired = new Set<string>();
  let baseUrl = '';

  const retained = (task: SimTask) => !expired.has(task.id);
  const parameters = (task: SimTask) => (task.body.parameters ?? {}) as Record<string, unknown>;
  const media = (task: SimTask) => (task.body.input as { media?: Array<{ type?: string }> }).media ?? [];

  function usage(task: SimTask): Record<string, unknown> {
    const b = task.behaviour;
    const d: DashScopeBehaviour = dashscopeDirectives(task.body.input);
    const requested = parameters(task).duration;
    const output = b.duration ?? (requested === -1 ? 7 : typeof requested === 'number' ? requested : 5);
    const references = media(task).filter((m) => m.type === 'reference_video').length;
    const input = d.inputSeconds ?? Math.min(5, references * 2.5);
    const tier = Number(String(parameters(task).resolution ?? '1080P').replace(/P$/, ''));
    return { duration: d.total ?? output + input, input_video_duration: input, output_video_duration: output, video_count: 1, SR: d.sr ?? tier };
  }

  function view(task: SimTask) {
    const phase = book.phase(task);
    const status = STATUS_OF[phase] ?? phase;
    const b = task.behaviour;
    const done = book.doneAt(task);
    const started = task.createdAt + (b.queuedMs ?? options.queuedMs ?? 1500);
    const expires = Math.floor((done + (b.urlTtlMs ?? DAY_MS)) / 1000);
    return {
      request_id: randomUUID(),
      output: {
        task_id: task.id,
        task_status: status,
        submit_time: cst(task.createdAt),
        ...(status !== 'PENDING' && status !== 'CANCELED' ? { scheduled_time: cst(started) } : {}),
        ...(FINAL.has(status) ? { end_time: cst(Math.min(done, Date.now())) } : {}),
        orig_prompt: String((task.body.input as { prompt?: unknown }).prompt ?? ''),
        ...(status === 'SUCCEEDED' && !b.noUrl
          ? { video_url: `${baseUrl}/assets/${task.asset}.mp4?Expires=${expires}&Signature=${randomBytes(12).toString('hex')}` }
          : {}),
        ...(status === 'FAILED' ? { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' } : {}),
      },
      ...(status === 'SUCCEEDED' && !b.noDuration ? { usage: usage(task) } : {}),
    };
  }

  const server = await serveJson((req) => {
    const asset = /^\/assets\/([0-9a-f]+)\.mp4$/.exec(req.path);
    if (asset && req.method === 'GET') {
      // The OSS bucket: no credential, a URL signed until Expires (unix seconds).
      const task = book.byAsset(asset[1]!);
      if (!task || !retained(task) || book.phase(task) !== 'succeeded') return { status: 404, body: { message: 'NoSuchKey' } };
      if (Number(req.query.get('Expires')) * 1000 < Date.now()) return { status: 403, body: { message: 'AccessDenied: Request has expired' } };
      return assetAnswer(task.asset, book.bytes(task), 'video/mp4', req.headers.range, task.behaviour.cutBytes);
    }
    if (!/^Bearer \S+/.test(String(req.headers.authorization ?? ''))) return dashscopeError(401, 'InvalidApiKey', 'Invalid API-key provided.');
    if (req.method === 'POST' && req.path === CREATE) {
      const refusal = refusalOf(req.headers, req.body);
      if (refusal) return dashscopeError(refusal.status, refusal.code, refusal.message);
      const task = book.add(req.body, req.body.input);
      const d = dashscopeDirectives(req.body.input);
      if (task.behaviour.reject || d.arrears) {
        book.remove(task.id);
        if (d.arrears) return dashscopeError(400, 'Arrearage', 'Access denied, plesase make sure your account is in good standing.');
        if (task.behaviour.reject === 429) return dashscopeError(429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');
        return dashscopeError(task.behaviour.reject!, 'DataInspectionFailed', 'Input data may contain inappropriate content.');
      }
      submissions.push(req.body);
      return { status: 200, body: { request_id: randomUUID(), output: { task_id: task.id, task_status: 'PENDING' } } };
    }
    const match = /^\/api\/v1\/tasks\/([^/]+)(\/cancel)?$/.exec(req.path);
    if (!match) return dashscopeError(400, 'InvalidURL', 'Invalid URL provided in your request.');
    const id = decodeURIComponent(match[1]!);
    const task = tasks.get(id);
    const live = task && retained(task) ? task : undefined;
    if (req.method === 'GET' && !match[2]) {
      if (!live) return { status: 200, body: { request_id: randomUUID(), output: { task_id: id, task_status: 'UNKNOWN' } } };
      const body = view(live);
      return { status: 200, body, offContract: !KNOWN.has(body.output.task_status) };
    }
    if (req.method === 'POST' && match[2]) {
      if (live && book.phase(live) === 'queued') {
        book.cancel(live);
        return { status: 200, body: { request_id: randomUUID() } };
      }
      return dashscopeError(400, 'UnsupportedOperation', 'Failed to cancel the task, please confirm if the task is in PENDING status.');
    }
    return dashscopeError(400, 'InvalidURL', 'Invalid URL provided in your request.');
  });
  baseUrl = server.baseUrl;
  return {
    ...server,
    reset() {
      server.exchanges.length = 0;
      book.clear();
      submissions.length = 0;
      expired.clear();
    },
    tasks,
    submissions,
    videoBytes: (taskId) => {
      const task = tasks.get(taskId)!;
      return assetBytes(task.asset, book.bytes(task));
    },
    expire: (taskId) => void expired.add(taskId),
  };
}
