// A stateful simulated Volcengine Ark content-generation API: tasks move queued -> running ->
// succeeded over time; DELETE follows Ark's matrix (cancel only while queued).
import { randomBytes } from 'node:crypto';
import type { Simulator } from '../index.ts';
import { serveJson } from '../json-server.ts';
import { parseTaskDirectives, textOf, type TaskBehaviour } from '../task-directives.ts';

interface ArkTask {
  id: string;
  body: Record<string, unknown>;
  behaviour: TaskBehaviour;
  createdAt: number;
  cancelled: boolean;
  /** The supplier's asset path, unrelated to the task id like real signed URLs. */
  asset: string;
}

export interface ArkSimulator extends Simulator {
  tasks: Map<string, ArkTask>;
  submissions: Array<Record<string, unknown>>;
}

const arkError = (status: number, code: string, message: string) => ({ status, body: { error: { code, message, param: '', type: status === 404 ? 'NotFound' : 'BadRequest' } } });

export async function startArkSimulator(options: { queuedMs?: number; runningMs?: number } = {}): Promise<ArkSimulator> {
  const tasks = new Map<string, ArkTask>();
  const submissions: Array<Record<string, unknown>> = [];

  const stateOf = (task: ArkTask): string => {
    if (task.cancelled) return 'cancelled';
    const elapsed = Date.now() - task.createdAt;
    const queued = task.behaviour.queuedMs ?? options.queuedMs ?? 1500;
    const running = task.behaviour.runningMs ?? options.runningMs ?? 3000;
    if (elapsed < queued) return 'queued';
    if (elapsed < queued + running) return 'running';
    return task.behaviour.status ?? (task.behaviour.fail ? 'failed' : 'succeeded');
  };

  const view = (task: ArkTask) => {
    const status = stateOf(task);
    const b = task.behaviour;
    const seconds = b.duration ?? Number(task.body.duration ?? 5);
    const resolution = b.resolution ?? String(task.body.resolution ?? '720p');
    return {
      id: task.id,
      model: task.body.model,
      status,
      ...(status === 'succeeded' && !b.noUrl ? { content: { video_url: `https://ark-sim.example/videos/${task.asset}.mp4` } } : {}),
      ...(status === 'succeeded' ? { usage: { completion_tokens: 108900, total_tokens: 108900 } } : {}),
      error: status === 'failed' ? { code: 'OutputVideoSensitiveContentDetected', message: 'The generated video may contain sensitive content.' } : null,
      created_at: Math.floor(task.createdAt / 1000),
      updated_at: Math.floor(Date.now() / 1000),
      seed: 42,
      resolution,
      ratio: task.body.ratio ?? '16:9',
      ...(b.noDuration ? {} : { duration: seconds }),
      framespersecond: 24,
    };
  };

  const server = await serveJson((req) => {
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return arkError(401, 'AuthenticationError', 'missing key');
    const match = /^\/contents\/generations\/tasks(?:\/([^/]+))?$/.exec(req.path);
    if (!match) return arkError(404, 'NotFound', 'no route');
    const id = match[1] ? decodeURIComponent(match[1]) : undefined;
    if (req.method === 'POST' && !id) {
      if (!Array.isArray(req.body.content) || !req.body.model) return arkError(400, 'MissingParameter', 'content and model are required');
      submissions.push(req.body);
      if (/\[\[sim reject\]\]/.test(textOf(req.body.content))) return arkError(400, 'InputTextSensitiveContentDetected', 'The request failed because the input text may contain sensitive information. Request id: 0217');
      const task = { id: `cgt-${randomBytes(8).toString('hex')}`, body: req.body, behaviour: parseTaskDirectives(textOf(req.body.content)), createdAt: Date.now(), cancelled: false, asset: randomBytes(12).toString('hex') };
      tasks.set(task.id, task);
      return { status: 200, body: { id: task.id } };
    }
    const task = id ? tasks.get(id) : undefined;
    if (!task) return arkError(404, 'NotFound', `task ${id} not found`);
    if (req.method === 'GET') return { status: 200, body: view(task) };
    if (req.method === 'DELETE') {
      const status = stateOf(task);
      if (status === 'queued') {
        task.cancelled = true;
        return { status: 200, body: {} };
      }
      if (status === 'running' || status === 'cancelled') return arkError(400, 'InvalidParameter', `a ${status} task cannot be cancelled`);
      tasks.delete(task.id); // finished tasks: the record is deleted
      return { status: 200, body: {} };
    }
    return arkError(405, 'InvalidParameter', 'method not allowed');
  });
  return { ...server, tasks, submissions };
}
