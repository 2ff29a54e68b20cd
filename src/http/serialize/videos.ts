// A video task on the wire: OpenAI's video object (what the OpenAI SDK's videos.* methods read)
// beside the platform envelope. How our statuses show in OpenAI's four is decided here, once.
import { formatMicros } from '../../shared/money.ts';
import type { VideoTaskRow } from '../../domain/videos/kind.ts';
import { TaskStatus } from '../../tasks/model.ts';
import type { PublicComponents } from '../../types.ts';

type WireVideoTask = PublicComponents['schemas']['VideoTask'];

const seconds = (date: Date | string | null): number | null => (date === null ? null : Math.floor(new Date(date).getTime() / 1000));

/**
 * Every value equal to an upstream id (the task's, the upstream model name) becomes ours: strings,
 * and numbers when the upstream id is a long number (some upstreams send task ids as numbers).
 */
function withPlatformIds(node: unknown, replace: ReadonlyMap<string, string>): unknown {
  if (typeof node === 'string') return replace.get(node) ?? node;
  if (typeof node === 'number' && Number.isSafeInteger(node) && node >= 100_000) return replace.get(String(node)) ?? node;
  if (Array.isArray(node)) return node.map((n) => withPlatformIds(n, replace));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withPlatformIds(v, replace)]));
  return node;
}

/**
 * OpenAI's four statuses. `review` is `in_progress`: the outcome is not decided (an operator settles
 * or releases it) and the reservation is held, so it is neither done nor failed. `cancelled` is
 * `failed` with the code `cancelled`. Submitting is an internal step, and waiting in the gateway's
 * queue is waiting all the same: queued (with a queue_position while it waits at the gateway).
 */
const OPENAI_STATUS: Record<TaskStatus, WireVideoTask['status']> = {
  [TaskStatus.Waiting]: 'queued',
  [TaskStatus.Submitting]: 'queued',
  [TaskStatus.Queued]: 'queued',
  [TaskStatus.InProgress]: 'in_progress',
  [TaskStatus.Review]: 'in_progress',
  [TaskStatus.Completed]: 'completed',
  [TaskStatus.Failed]: 'failed',
  [TaskStatus.Cancelled]: 'failed',
};

const taskStatus = (status: TaskStatus): WireVideoTask['task_status'] =>
  status === TaskStatus.Submitting || status === TaskStatus.Waiting ? 'queued' : status;

/** Shorter side of a tier's name ("720p", "768P", "2K"). */
const SHORT_SIDE: Record<string, number> = { '2k': 1440, '4k': 2160 };

/**
 * The size a task asked for, or the nominal pixel size of its tier and ratio ("720p" at 16:9 is
 * 1280x720; no ratio or `adaptive` counts as 16:9), for the OpenAI `size` field.
 */
export function nominalSize(resolution: string, ratio: string | null): string {
  const short = SHORT_SIDE[resolution.toLowerCase()] ?? Number(/^(\d+)p$/i.exec(resolution)?.[1] ?? 720);
  const [a, b] = ratio && ratio !== 'adaptive' ? ratio.split(':').map(Number) : [16, 9];
  const wide = Math.max(a!, b!) / Math.min(a!, b!);
  const long = Math.round((short * wide) / 2) * 2;
  return b! > a! ? `${short}x${long}` : `${long}x${short}`;
}

function errorOf(task: VideoTaskRow): WireVideoTask['error'] {
  if (task.error) return task.error;
  if (task.status === TaskStatus.Cancelled) return { code: 'cancelled', message: 'The task was cancelled at your request; nothing was charged.' };
  return null;
}

export function videoTaskToWire(task: VideoTaskRow): WireVideoTask {
  const replace = new Map<string, string>([[task.upstream_model, task.model_id]]);
  if (task.upstream_task_id) replace.set(task.upstream_task_id, task.id);
  const settled = task.status === TaskStatus.Completed && task.billed_amount !== null;
  const request = task.request;
  const size = request.size ?? null;
  return {
    id: task.id,
    object: 'video',
    task_id: task.id,
    model: task.model_id,
    status: OPENAI_STATUS[task.status],
    task_status: taskStatus(task.status),
    progress: task.status === TaskStatus.Completed ? 100 : Math.max(0, Math.min(100, Math.round(task.progress ?? 0))),
    queue_position: task.status === TaskStatus.Waiting ? (task.queue_position ?? null) : null,
    created_at: seconds(task.created_at)!,
    updated_at: seconds(task.updated_at)!,
    completed_at: seconds(task.completed_at),
    expires_at: task.status === TaskStatus.Completed ? seconds(task.expires_at) : null,
    size: size ?? nominalSize(request.resolution, request.ratio),
    seconds: String(task.billed_seconds ?? request.seconds),
    prompt: request.content.find((c) => c.type === 'text')?.text ?? null,
    remixed_from_video_id: null,
    error: errorOf(task),
    request: { seconds: request.seconds, resolution: request.resolution, ratio: request.ratio, size },
    billing: settled
      ? {
          amount: formatMicros(BigInt(task.billed_amount!)),
          currency: task.price.currency,
          seconds: task.billed_seconds,
          resolution: task.billed_tier,
          price_version: (task.price as { version?: number }).version ?? 1,
        }
      : null,
    result: task.status === TaskStatus.Completed && task.result ? (withPlatformIds(task.result, replace) as Record<string, unknown>) : null,
  };
}

export function videoTaskListToWire(page: { tasks: VideoTaskRow[]; hasMore: boolean }): PublicComponents['schemas']['VideoTaskList'] {
  const data = page.tasks.map(videoTaskToWire);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
}
