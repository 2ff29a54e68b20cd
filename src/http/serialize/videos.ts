import { formatMicros } from '../../shared/money.ts';
import { VideoStatus, type VideoTaskRow } from '../../domain/videos/model.ts';
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

/** Submitting is an internal step: clients see it as queued. */
const publicStatus = (status: VideoStatus): WireVideoTask['status'] => (status === VideoStatus.Submitting ? 'queued' : status);

export function videoTaskToWire(task: VideoTaskRow): WireVideoTask {
  const replace = new Map<string, string>([[task.upstream_model, task.model_id]]);
  if (task.upstream_task_id) replace.set(task.upstream_task_id, task.id);
  const settled = task.status === VideoStatus.Completed && task.billed_amount !== null;
  return {
    id: task.id,
    object: 'video.task',
    model: task.model_id,
    status: publicStatus(task.status),
    progress: task.progress,
    created_at: seconds(task.created_at)!,
    updated_at: seconds(task.updated_at)!,
    completed_at: seconds(task.completed_at),
    request: { seconds: task.request.seconds, resolution: task.request.resolution, ratio: task.request.ratio },
    error: task.error,
    billing: settled
      ? { amount: formatMicros(BigInt(task.billed_amount!)), currency: task.price.currency, seconds: task.billed_seconds, resolution: task.billed_tier, price_version: (task.price as { version?: number }).version ?? 1 }
      : null,
    result: task.status === VideoStatus.Completed && task.result ? (withPlatformIds(task.result, replace) as Record<string, unknown>) : null,
  };
}
