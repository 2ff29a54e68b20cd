// The state every simulated task upstream keeps: tasks that move queued -> running -> a final
// status over time, shaped by prompt directives.
import { randomBytes } from 'node:crypto';
import { parseTaskDirectives, textOf, type TaskBehaviour } from './task-directives.ts';

export interface SimTask {
  id: string;
  body: Record<string, unknown>;
  behaviour: TaskBehaviour;
  createdAt: number;
  cancelled: boolean;
  /** The supplier's asset path, unrelated to the task id like real signed URLs. */
  asset: string;
}

/** Size of a generated file unless `[[sim bytes=N]]` says otherwise. */
export const DEFAULT_ASSET_BYTES = 256 * 1024;

export type SimPhase = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | string;

export function createTaskBook(options: { queuedMs?: number; runningMs?: number; idPrefix: string }) {
  const tasks = new Map<string, SimTask>();
  return {
    tasks,
    add(body: Record<string, unknown>, text: unknown = body): SimTask {
      const task = {
        id: `${options.idPrefix}${randomBytes(8).toString('hex')}`,
        body,
        behaviour: parseTaskDirectives(textOf(text)),
        createdAt: Date.now(),
        cancelled: false,
        asset: randomBytes(12).toString('hex'),
      };
      tasks.set(task.id, task);
      return task;
    },
    phase(task: SimTask): SimPhase {
      if (task.cancelled) return 'cancelled';
      const elapsed = Date.now() - task.createdAt;
      const queued = task.behaviour.queuedMs ?? options.queuedMs ?? 1500;
      if (elapsed < queued) return 'queued';
      if (Date.now() < this.doneAt(task)) return 'running';
      return task.behaviour.status ?? (task.behaviour.fail ? 'failed' : 'succeeded');
    },
    /** When the task finished (or will), in ms. */
    doneAt(task: SimTask): number {
      return task.createdAt + (task.behaviour.queuedMs ?? options.queuedMs ?? 1500) + (task.behaviour.runningMs ?? options.runningMs ?? 3000);
    },
    /** The generated file's size. */
    bytes: (task: SimTask): number => task.behaviour.bytes ?? DEFAULT_ASSET_BYTES,
  };
}
