// A stateful simulated Volcengine Ark content-generation API: tasks move queued -> running ->
// succeeded over time; DELETE follows Ark's matrix (cancel only while queued).
import type { Simulator } from '../index.ts';
import { serveJson } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';
import { textOf } from '../task-directives.ts';

export interface ArkSimulator extends Simulator {
  tasks: Map<string, SimTask>;
  submissions: Array<Record<string, unknown>>;
}

const arkError = (status: number, code: string, message: string) => ({ status, body: { error: { code, message, param: '', type: status === 404 ? 'NotFound' : 'BadRequest' } } });

export async function startArkSimulator(options: { queuedMs?: number; runningMs?: number } = {}): Promise<ArkSimulator> {
  const book = createTaskBook({ ...options, idPrefix: 'cgt-' });
  const { tasks } = book;
  const submissions: Array<Record<string, unknown>> = [];
  const stateOf = book.phase;

  const view = (task: SimTask) => {
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
      const task = book.add(req.body, req.body.content);
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
