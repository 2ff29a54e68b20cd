// A simulated OpenAI videos (Sora) API: POST/GET /v1/videos, GET /v1/videos/{id}/content, DELETE.
import type { Simulator } from '../index.ts';
import { serveJson } from '../json-server.ts';
import { createTaskBook, type SimTask } from '../task-book.ts';

export interface OpenAIVideosSimulator extends Simulator {
  submissions: Array<Record<string, unknown>>;
}

const openaiError = (status: number, message: string, code: string | null = null) => ({ status, body: { error: { message, type: 'invalid_request_error', param: null, code } } });
const STATUS: Record<string, string> = { queued: 'queued', running: 'in_progress', succeeded: 'completed', failed: 'failed' };

export async function startOpenAIVideosSimulator(options: { queuedMs?: number; runningMs?: number } = {}): Promise<OpenAIVideosSimulator> {
  const book = createTaskBook({ ...options, idPrefix: 'video_' });
  const submissions: Array<Record<string, unknown>> = [];

  const view = (task: SimTask) => {
    const phase = book.phase(task);
    const b = task.behaviour;
    const status = STATUS[phase] ?? phase;
    return {
      id: task.id,
      object: 'video',
      model: task.body.model,
      status,
      progress: status === 'completed' ? 100 : status === 'in_progress' ? 50 : 0,
      created_at: Math.floor(task.createdAt / 1000),
      completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
      expires_at: null,
      prompt: task.body.prompt,
      ...(b.noDuration ? {} : { seconds: String(b.duration ?? task.body.seconds ?? '4') }),
      size: b.resolution === '1080p' ? '1920x1080' : String(task.body.size ?? '1280x720'),
      remixed_from_video_id: null,
      error: status === 'failed' ? { code: 'moderation_blocked', message: 'The video was blocked by moderation.' } : null,
    };
  };

  const server = await serveJson((req) => {
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return openaiError(401, 'Missing API key.', 'invalid_api_key');
    const match = /^\/v1\/videos(?:\/([^/]+))?(\/content)?$/.exec(req.path);
    if (!match) return openaiError(404, 'Not found.');
    const [, id, content] = match;
    if (req.method === 'POST' && !id) {
      if (typeof req.body.prompt !== 'string') return openaiError(400, "Missing required parameter: 'prompt'.");
      submissions.push(req.body);
      return { status: 200, body: view(book.add(req.body, req.body.prompt)) };
    }
    const task = id ? book.tasks.get(id) : undefined;
    if (!task) return openaiError(404, `Video ${id} not found.`);
    if (req.method === 'GET' && content) {
      const ready = book.phase(task) === 'succeeded' && !task.behaviour.noUrl;
      return ready ? { status: 200, body: { bytes: 1048576 } } : openaiError(404, 'Video content is not available.');
    }
    if (req.method === 'GET') return { status: 200, body: view(task) };
    if (req.method === 'DELETE') {
      if (!['succeeded', 'failed'].includes(book.phase(task))) return openaiError(400, 'Only completed or failed videos can be deleted.');
      book.tasks.delete(task.id);
      return { status: 200, body: { id: task.id, object: 'video.deleted', deleted: true } };
    }
    return openaiError(405, 'Method not allowed.');
  });
  return { ...server, submissions };
}
