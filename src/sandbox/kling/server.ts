// A simulated Kling (official API): POST /v1/videos/{text2video|image2video}, GET
// /v1/videos/{kind}/{task_id} (a task is found only at the path of its kind). Like the real API
// it verifies each call's JWT (HS256, signed with the account's secret key, issued by its access
// key, within nbf/exp), refuses undocumented fields and values (validate.ts), answers the envelope
// {code, message, request_id, data} and errors as {code, message, request_id} with the HTTP status
// of Kling's error table, moves tasks submitted -> processing -> succeed | failed, and refuses a
// create over the account's concurrency with code 1303. Directives: `[[sim reject=1303]]` (or
// 1101, 1102, any Kling code; `reject` alone is a content-policy 1301, `reject=429` the rate
// 1302), `[[sim no_duration]]`, `[[sim video_durations=5,10]]` (two videos that disagree), and
// the shared ones (fail, duration, queued_ms, running_ms, status, bytes, cut_bytes).
import { randomUUID } from 'node:crypto';
import { errors as jose, jwtVerify } from 'jose';
import { assetAnswer, assetBytes } from '../assets.ts';
import { serveJson, type Exchange, type JsonAnswer, type JsonRequest } from '../json-server.ts';
import type { Simulator, SimulatorOptions } from '../simulator.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';
import { textOf } from '../task-directives.ts';
import { refusalOf, type SimKind } from './validate.ts';

export interface KlingSimulator extends Simulator {
  /** Accepted create bodies, with the endpoint they came to. */
  submissions: Array<{ kind: SimKind; body: Record<string, unknown> }>;
  exchanges: Exchange[];
  tasks: Map<string, SimTask>;
  /** The MP4 a client downloading this task's video should receive. */
  videoBytes(taskId: string): Buffer;
}

export interface KlingSimulatorOptions extends SimulatorOptions {
  /** The account's concurrency (tasks submitted or processing at once); unlimited when absent. */
  concurrency?: number;
  /** The account's keys (the gateway's sandbox provider signs with the same pair, src/providers/kling/auth.ts). */
  accessKey?: string;
  secretKey?: string;
}

/** Kling's error table: code -> HTTP status and its wording. */
const CODES: Record<number, [number, string]> = {
  1000: [401, 'Authentication failed'],
  1001: [401, 'Authorization is empty'],
  1002: [401, 'Authorization is invalid'],
  1003: [401, 'Authorization is not yet valid'],
  1004: [401, 'Authorization has expired'],
  1100: [429, 'Account exception'],
  1101: [429, 'Account in arrears'],
  1102: [429, 'Resource pack depleted or expired'],
  1103: [403, 'Unauthorized access to the requested resource'],
  1202: [404, 'Invalid request method'],
  1203: [404, 'Requested resource does not exist'],
  1301: [400, 'Trigger the content security policy of the platform'],
  1302: [429, 'API request too fast, trigger the platform rate limit'],
  1303: [429, 'parallel task over resource pack limit'],
  1304: [429, "Trigger the platform's IP whitelist policy"],
  5000: [500, 'Internal server error'],
};
const KINDS: readonly string[] = ['text2video', 'image2video'];
const STATUS: Record<string, string> = { queued: 'submitted', running: 'processing', succeeded: 'succeed', failed: 'failed' };
const CREATE = /^\/v1\/videos\/(text2video|image2video)$/;
const QUERY = /^\/v1\/videos\/([^/]+)\/([^/]+)$/;

const answer = (status: number, body: Record<string, unknown>): JsonAnswer => ({ status, body: { ...body, request_id: randomUUID() } });
const klingError = (code: number, message?: string, status?: number): JsonAnswer =>
  answer(status ?? CODES[code]?.[0] ?? 400, { code, message: message ?? CODES[code]?.[1] ?? 'error' });

/** A directive's refusal as Kling answers it: a Kling code, or an HTTP status of the shared directives. */
function rejection(reject: number): JsonAnswer {
  if (reject >= 1000) return klingError(reject);
  if (reject === 429) return klingError(1302);
  if (reject >= 500) return klingError(5000);
  return klingError(1301, 'Failure to pass the risk control system: the input text may be sensitive');
}

export async function startKlingSimulator(options: KlingSimulatorOptions = {}): Promise<KlingSimulator> {
  const accessKey = options.accessKey ?? 'sandbox-kling-access-key';
  const secret = new TextEncoder().encode(options.secretKey ?? 'sandbox-kling-secret-key');
  const book = createTaskBook({ ...options, idPrefix: '' });
  const submissions: KlingSimulator['submissions'] = [];
  let baseUrl = '';

  /** 1001 no token, 1002 not ours or malformed, 1003 not yet valid, 1004 expired, 1000 another account's. */
  async function authRefusal(req: JsonRequest): Promise<JsonAnswer | undefined> {
    const match = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    if (!match) return klingError(1001);
    try {
      await jwtVerify(match[1]!, secret, { algorithms: ['HS256'], typ: 'JWT', issuer: accessKey, requiredClaims: ['exp', 'nbf'] });
      return undefined;
    } catch (error) {
      if (error instanceof jose.JWTExpired) return klingError(1004);
      if (error instanceof jose.JWTClaimValidationFailed && error.claim === 'nbf') return klingError(1003);
      if (error instanceof jose.JWTClaimValidationFailed && error.claim === 'iss') return klingError(1000);
      return klingError(1002);
    }
  }

  const running = () => [...book.tasks.values()].filter((t) => ['queued', 'running'].includes(book.phase(t))).length;

  function create(kind: SimKind, body: Record<string, unknown>): JsonAnswer {
    const refusal = refusalOf(kind, body);
    if (refusal) return klingError(refusal.code, refusal.message, refusal.status);
    if (options.concurrency !== undefined && running() >= options.concurrency) return klingError(1303);
    const task = book.add(body, [body.prompt, body.negative_prompt], { kind });
    if (task.behaviour.reject) {
      book.remove(task.id);
      return rejection(task.behaviour.reject);
    }
    submissions.push({ kind, body });
    const at = task.createdAt;
    return answer(200, { code: 0, message: 'SUCCEED', data: { task_id: task.id, task_status: 'submitted', task_info: {}, created_at: at, updated_at: at } });
  }

  function view(task: SimTask): { body: Record<string, unknown>; offContract: boolean } {
    const phase = book.phase(task);
    const status = STATUS[phase] ?? phase;
    const b = task.behaviour;
    const finished = status === 'succeed' || status === 'failed';
    const seconds = b.duration ?? Number(task.body.duration ?? 5);
    const lengths = /\[\[sim [^\]]*\bvideo_durations=([\d.,]+)/.exec(textOf(task.body.prompt))?.[1]?.split(',') ?? [String(seconds)];
    const videos = lengths.map((length, i) => ({
      id: `${task.asset.slice(0, 8)}-${i}`,
      url: `${baseUrl}/assets/${task.asset}.mp4`,
      ...(b.noDuration ? {} : { duration: length }),
    }));
    const data = {
      task_id: task.id,
      task_status: status,
      task_status_msg: status === 'failed' ? 'Failure to pass the risk control system' : '',
      task_info: {},
      created_at: task.createdAt,
      updated_at: finished ? book.doneAt(task) : Date.now(),
      ...(status === 'succeed' ? { final_unit_deduction: String(seconds / 5), task_result: { videos } } : {}),
    };
    return { body: { code: 0, message: 'SUCCEED', data }, offContract: !['submitted', 'processing', 'succeed', 'failed'].includes(status) };
  }

  const server = await serveJson(async (req) => {
    const asset = /^\/assets\/([0-9a-f]+)\.mp4$/.exec(req.path);
    if (asset && req.method === 'GET') {
      // The CDN: no credential; the file exists once the task succeeded.
      const task = book.byAsset(asset[1]!);
      if (!task || book.phase(task) !== 'succeeded') return { status: 404, body: { message: 'NoSuchKey' } };
      return assetAnswer(task.asset, book.bytes(task), 'video/mp4', req.headers.range, task.behaviour.cutBytes);
    }
    const refused = await authRefusal(req);
    if (refused) return refused;
    const creating = CREATE.exec(req.path);
    if (creating && req.method === 'POST') return create(creating[1] as SimKind, req.body);
    const query = QUERY.exec(req.path);
    if (!query || req.method !== 'GET' || !KINDS.includes(query[1]!)) return klingError(1202);
    const id = decodeURIComponent(query[2]!);
    const task = book.tasks.get(id);
    // A task is known only at the path of its own kind.
    if (!task || task.extra?.kind !== query[1]) return klingError(1203, `task ${id} not found`);
    const { body, offContract } = view(task);
    return { ...answer(200, body), offContract };
  });
  baseUrl = server.baseUrl;
  return {
    ...server,
    reset() {
      server.exchanges.length = 0;
      book.clear();
      submissions.length = 0;
    },
    submissions,
    tasks: book.tasks,
    videoBytes: (taskId) => {
      const task = book.tasks.get(taskId)!;
      return assetBytes(task.asset, book.bytes(task));
    },
  };
}
