// Kling's official video API: POST /v1/videos/{text2video|image2video}, then GET
// /v1/videos/{kind}/{task_id} at the path of the task's kind (request.ts: which kind, and the
// upstream id that remembers it and the mode). Every call carries a short-lived JWT (auth.ts).
// Kling has no cancel. A task is settled on its delivered `task_result.videos[].duration` at the
// mode it was priced at (Kling's answers do not repeat the mode); its files are kept 30 days.
import { asId, asRecord, asString, callJson, type JsonAnswer } from '../json-http.ts';
import type { ResolvedProvider } from '../../catalogue/types.ts';
import { UpstreamError } from '../types.ts';
import type { VideoAdapter, VideoAssetLocation, VideoPoll } from '../video.ts';
import { locatedByPoll } from '../video-steps.ts';
import { createKlingTokens, parseKlingCredential, SANDBOX_KEYS, type KlingKeys } from './auth.ts';
import { codeError, klingErrorOf, mapCreateRefusal, TOKEN_TIME_REFUSALS } from './errors.ts';
import { klingCreate, taskPath, taskRefOf, upstreamIdOf, type KlingTaskRef } from './request.ts';

const STATUS: Record<string, VideoPoll['status']> = {
  submitted: 'queued',
  processing: 'in_progress',
  succeed: 'completed',
  failed: 'failed',
};

/** Kling deletes generated files after 30 days. */
const KEPT_S = 30 * 24 * 3600;

const tokens = createKlingTokens();

const keysOf = (provider: ResolvedProvider): KlingKeys | string => (provider.sandbox ? SANDBOX_KEYS : parseKlingCredential(provider.credential()));

/** One call with a fresh-enough token; an answer with a non-zero `code` is an error, whatever its HTTP status. */
async function call(provider: ResolvedProvider, method: 'GET' | 'POST', path: string, body?: unknown): Promise<JsonAnswer | UpstreamError> {
  const keys = keysOf(provider);
  // The registry does not enable a provider with a malformed credential; this is its value changing since.
  if (typeof keys === 'string') return new UpstreamError('status', false, 401, JSON.stringify({ error: { message: `the credential variable ${keys}` } }));
  const answer = await callJson(provider, method, path, body, { bearer: await tokens.token(keys) });
  if (answer instanceof UpstreamError) {
    if (answer.status === 401 && TOKEN_TIME_REFUSALS.has(klingErrorOf(answer.body)?.code ?? 0)) tokens.forget(keys);
    return answer;
  }
  if (answer.body.code === 0) return answer;
  if (typeof answer.body.code === 'number') return codeError(answer.status, answer.body);
  return new UpstreamError('protocol', false, answer.status, JSON.stringify(answer.body).slice(0, 2000));
}

/** Kling's task (`data` of a query) in the platform's terms. */
export function parseKlingTask(data: Record<string, unknown>, ref: KlingTaskRef): VideoPoll {
  const upstreamStatus = String(data.task_status ?? '');
  const result = asRecord(data.task_result);
  const videos = (Array.isArray(result.videos) ? result.videos : []).map(asRecord);
  // One video per task. Videos that disagree on their length leave the delivery unconfirmed (review).
  const durations = new Set(videos.map((v) => v.duration));
  const duration = durations.size === 1 ? [...durations][0] : undefined;
  const succeeded = upstreamStatus === 'succeed';
  return {
    status: STATUS[upstreamStatus] ?? 'unknown',
    upstreamStatus,
    progress: succeeded ? 100 : null,
    deliveredSeconds: typeof duration === 'string' || typeof duration === 'number' ? duration : undefined,
    deliveredResolution: ref.mode,
    assetUrl: asString(videos[0]?.url),
    expiresAt: succeeded && typeof data.updated_at === 'number' ? Math.floor(data.updated_at / 1000) + KEPT_S : null,
    error: upstreamStatus === 'failed' ? { code: 'generation_failed', message: String(data.task_status_msg ?? '') } : undefined,
    // Kling's task id is shown as the upstream id the gateway keeps, which the platform's own replaces.
    raw: { ...data, task_id: upstreamIdOf(ref) },
  };
}

export const klingAdapter: VideoAdapter = {
  async submit(provider, upstreamModel, request) {
    const create = klingCreate(upstreamModel, request);
    // What Kling cannot carry is refused here, before any call, as Kling would refuse it.
    if (typeof create === 'string') return new UpstreamError('status', false, 400, JSON.stringify({ error: { message: create } }));
    const answer = await call(provider, 'POST', `/v1/videos/${create.kind}`, create.body);
    if (answer instanceof UpstreamError) return answer.kind === 'status' ? mapCreateRefusal(answer) : answer;
    const taskId = asId(asRecord(answer.body.data).task_id);
    return taskId ? { upstreamId: upstreamIdOf({ kind: create.kind, mode: create.mode, taskId }) } : new UpstreamError('protocol', false, answer.status);
  },
  async poll(provider, upstreamId) {
    const ref = taskRefOf(upstreamId);
    if (!ref) return new UpstreamError('protocol', false);
    const answer = await call(provider, 'GET', taskPath(ref));
    return answer instanceof UpstreamError ? answer : parseKlingTask(asRecord(answer.body.data), ref);
  },
  // Kling has no cancel API; the catalogue marks its plans not cancellable.
  cancel: async () => 'refused',
  variants: ['video'],
  async locate(provider, upstreamId): Promise<VideoAssetLocation | 'gone' | UpstreamError> {
    // The task answers the file's CDN URL (no credential) for as long as Kling keeps it.
    return locatedByPoll(await this.poll(provider, upstreamId));
  },
};
