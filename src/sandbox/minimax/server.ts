// A simulated MiniMax video v2 (H3) API: POST /v2/video_generation, GET /v2/query/video_generation/{id}.
import type { Simulator } from '../index.ts';
import { serveJson } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';

export interface MiniMaxSimulator extends Simulator {
  submissions: Array<Record<string, unknown>>;
}

const minimaxError = (status: number, message: string) => ({ status, body: { error: { message, http_code: String(status) } } });

export async function startMiniMaxSimulator(options: { queuedMs?: number; runningMs?: number } = {}): Promise<MiniMaxSimulator> {
  const book = createTaskBook({ ...options, idPrefix: '3' });
  const submissions: Array<Record<string, unknown>> = [];

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
        error: status === 'failed' ? { code: 1027, message: 'output video sensitive' } : null,
        created_at: Math.floor(task.createdAt / 1000),
        updated_at: Math.floor(Date.now() / 1000),
        ...(status === 'succeeded' && !b.noUrl ? { content: { url: `https://minimax-sim.example/v/${task.asset}.mp4` } } : {}),
        resolution: b.resolution ?? task.body.resolution ?? '768P',
        ratio: task.body.ratio ?? 'adaptive',
        ...(b.noDuration ? {} : { duration: seconds }),
        ...(status === 'succeeded' && !b.noDuration ? { usage: { total_seconds: seconds, input_seconds: 0, output_seconds: seconds, input_image_count: images } } : {}),
      },
    };
  };

  const server = await serveJson((req) => {
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return minimaxError(401, 'invalid api key');
    if (req.method === 'POST' && req.path === '/v2/video_generation') {
      const content = Array.isArray(req.body.content) ? (req.body.content as Array<{ type?: string; role?: string }>) : [];
      if (content.filter((c) => c.type === 'text').length !== 1) return minimaxError(400, 'exactly one text item is required');
      if (content.filter((c) => c.role === 'reference_image').length > 9) return minimaxError(400, 'at most 9 reference images');
      submissions.push(req.body);
      return { status: 200, body: { task_id: book.add(req.body, content).id, base_resp: { status_code: 0, status_msg: 'success' } } };
    }
    const match = /^\/v2\/query\/video_generation\/([^/]+)$/.exec(req.path);
    const task = match ? book.tasks.get(decodeURIComponent(match[1]!)) : undefined;
    if (req.method === 'GET' && task) return { status: 200, body: view(task) };
    return minimaxError(404, 'task not found');
  });
  return { ...server, submissions };
}
