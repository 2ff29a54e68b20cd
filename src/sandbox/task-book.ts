// The state every simulated task upstream keeps: tasks that move queued -> running -> a final
// status over time, shaped by prompt directives. A real provider keeps its tasks (and serves their
// files until they expire) whatever happens to the gateway, so with a `stateFile` the book keeps
// them too: every change is appended to the file as it happens, and a new book (a restarted
// gateway's simulator, on a new port) reads them back, so a task finished before a restart can
// be polled and downloaded after it. Without one (tests' own simulators) it lives in memory.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseTaskDirectives, textOf, type TaskBehaviour } from './task-directives.ts';

export interface SimTask {
  id: string;
  body: Record<string, unknown>;
  behaviour: TaskBehaviour;
  createdAt: number;
  cancelled: boolean;
  /** The supplier's asset path, unrelated to the task id like real signed URLs. */
  asset: string;
  /** What a simulator records about the task beyond its body (Kling: the kind of task it was created as). */
  extra?: Record<string, unknown>;
}

/** Size of a generated file unless `[[sim bytes=N]]` says otherwise. */
export const DEFAULT_ASSET_BYTES = 256 * 1024;

/** Tasks older than this are not read back (every simulated file URL has expired by then). */
const KEPT_MS = 7 * 86_400_000;

export type SimPhase = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | string;

type Change = { op: 'add'; task: SimTask } | { op: 'remove'; id: string } | { op: 'cancel'; id: string } | { op: 'clear' };

/** The tasks a state file holds, replayed; then the file is rewritten with those alone. */
function readBack(file: string): Map<string, SimTask> {
  const tasks = new Map<string, SimTask>();
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  for (const line of text.split('\n')) {
    if (!line) continue;
    let change: Change;
    try {
      change = JSON.parse(line) as Change;
    } catch {
      continue; // a line cut short by a crash: the change it recorded is lost, nothing else
    }
    if (change.op === 'add') tasks.set(change.task.id, change.task);
    else if (change.op === 'remove') tasks.delete(change.id);
    else if (change.op === 'clear') tasks.clear();
    else if (change.op === 'cancel') {
      const task = tasks.get(change.id);
      if (task) task.cancelled = true;
    }
  }
  for (const [id, task] of tasks) if (Date.now() - task.createdAt > KEPT_MS) tasks.delete(id);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, [...tasks.values()].map((task) => `${JSON.stringify({ op: 'add', task })}\n`).join(''));
  fs.renameSync(`${file}.tmp`, file);
  return tasks;
}

export function createTaskBook(options: { queuedMs?: number; runningMs?: number; idPrefix: string; stateFile?: string }) {
  const tasks = options.stateFile ? readBack(options.stateFile) : new Map<string, SimTask>();
  const byAsset = new Map([...tasks.values()].map((task) => [task.asset, task]));
  const record = (change: Change) => {
    if (options.stateFile) fs.appendFileSync(options.stateFile, `${JSON.stringify(change)}\n`);
  };
  return {
    /** Simulators change tasks through add, remove and cancel, which the state file records (a test may drop one here to make the provider forget it). */
    tasks,
    add(body: Record<string, unknown>, text: unknown = body, extra?: Record<string, unknown>): SimTask {
      const task: SimTask = {
        id: `${options.idPrefix}${randomBytes(8).toString('hex')}`,
        body,
        behaviour: parseTaskDirectives(textOf(text)),
        createdAt: Date.now(),
        cancelled: false,
        asset: randomBytes(12).toString('hex'),
        ...(extra ? { extra } : {}),
      };
      tasks.set(task.id, task);
      byAsset.set(task.asset, task);
      record({ op: 'add', task });
      return task;
    },
    /** The provider forgets the task (a refused submission, a deletion) and its file. */
    remove(id: string): void {
      const task = tasks.get(id);
      if (!task) return;
      tasks.delete(id);
      byAsset.delete(task.asset);
      record({ op: 'remove', id });
    },
    /** The provider forgets every task (a test's fresh start). */
    clear(): void {
      tasks.clear();
      byAsset.clear();
      record({ op: 'clear' });
    },
    cancel(task: SimTask): void {
      task.cancelled = true;
      record({ op: 'cancel', id: task.id });
    },
    /** The task whose file has this asset path. */
    byAsset: (asset: string): SimTask | undefined => byAsset.get(asset),
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

export type TaskBook = ReturnType<typeof createTaskBook>;
