// SQL of the task table the poller runs: guarded status changes (alone, or batched with the others
// that arrive together), the claim of due tasks and its give-back. Status changes are guarded by
// the status they leave, so concurrent pollers, cancels and operators change a task once.
import type { Knex } from 'knex';
import { type TaskRow, type TaskStatus } from './model.ts';

/** Stands for the database's clock in a change (`completed_at: NOW`). */
export const NOW = Symbol('now');

/** Column values of a status change; `error` and `result` (jsonb) are given as JSON text. */
export type TaskChanges = Record<string, unknown>;

/** Applies `changes` only if the task is still in `from`; true when it was. */
export type Transition = (id: string, from: TaskStatus | readonly TaskStatus[], changes: TaskChanges) => Promise<boolean>;

const statuses = (from: TaskStatus | readonly TaskStatus[]): TaskStatus[] => (typeof from === 'string' ? [from] : [...from]);

/** One guarded UPDATE. */
export async function transition(db: Knex, id: string, from: TaskStatus | readonly TaskStatus[], changes: TaskChanges): Promise<boolean> {
  const values = Object.fromEntries(Object.entries(changes).map(([column, value]) => [column, value === NOW ? db.fn.now() : value]));
  const updated = await db('video_tasks')
    .where({ id })
    .whereIn('status', statuses(from))
    .update({ ...values, updated_at: db.fn.now() });
  return updated === 1;
}

const JSONB_COLUMNS = new Set(['error', 'result']);
const COLUMN = /^[a-z_]+$/;

/**
 * Changes one statement can carry: plain values, JSON text for jsonb, NOW. A value JSON cannot
 * carry as it is (a non-finite number, an invalid date: null in JSON) goes down the single-row
 * path, which refuses it as it always did rather than storing NULL.
 */
function batchable(changes: TaskChanges): boolean {
  return Object.entries(changes).every(([column, value]) => {
    if (!COLUMN.test(column)) return false;
    if (value === null || value === NOW || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return true;
    if (typeof value === 'number') return Number.isFinite(value);
    return value instanceof Date && !Number.isNaN(value.getTime());
  });
}

/** The row as JSON text for jsonb_populate_recordset: jsonb columns embedded as the JSON they hold. */
function rowJson(id: string, changes: TaskChanges): string {
  let text = `{"id":${JSON.stringify(id)}`;
  for (const [column, value] of Object.entries(changes)) {
    if (value === NOW) continue;
    // jsonb text is parsed and written again, so that it can only ever be one value of this row.
    const json =
      JSONB_COLUMNS.has(column) && typeof value === 'string'
        ? JSON.stringify(JSON.parse(value))
        : JSON.stringify(typeof value === 'bigint' ? value.toString() : value);
    text += `,${JSON.stringify(column)}:${json}`;
  }
  return `${text}}`;
}

interface PendingTransition {
  id: string;
  from: TaskStatus[];
  changes: TaskChanges;
  resolve(changed: boolean): void;
  reject(error: unknown): void;
}

/**
 * Status changes that arrive together share one statement per shape (the same columns and
 * guard): the poller's lanes each finish a task every few milliseconds, and one UPDATE and commit
 * per task queued them on the connection pool. One statement is in flight at a time; what
 * arrives meanwhile goes in the next. A task changes at most once per statement, a statement that
 * fails is retried change by change, and each caller learns whether its change applied.
 */
export function batchedTransitions(db: Knex, maxBatch = 500): Transition {
  let queue: PendingTransition[] = [];
  let flushing = false;

  async function apply(group: PendingTransition[]): Promise<void> {
    const [{ from, changes }] = group as [PendingTransition];
    const set = Object.keys(changes).map((column) => (changes[column] === NOW ? `${column} = now()` : `${column} = v.${column}`));
    try {
      const rows = `[${group.map((p) => rowJson(p.id, p.changes)).join(',')}]`;
      const { rows: changed } = await db.raw<{ rows: Array<{ id: string }> }>(
        `update video_tasks as t set ${[...set, 'updated_at = now()'].join(', ')}
         from jsonb_populate_recordset(null::video_tasks, ?::jsonb) as v
         where t.id = v.id and t.status = any(?::text[])
         returning t.id`,
        [rows, `{${from.join(',')}}`],
      );
      const ids = new Set(changed.map((row) => row.id));
      for (const p of group) p.resolve(ids.has(p.id));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      await Promise.all(group.map((p) => transition(db, p.id, p.from, p.changes).then(p.resolve, p.reject)));
    }
  }

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      // Each task once per round, at most maxBatch changes; the rest wait for the next round.
      const groups = new Map<string, PendingTransition[]>();
      const seen = new Set<string>();
      const later: PendingTransition[] = [];
      for (const p of queue) {
        if (seen.size >= maxBatch || seen.has(p.id)) {
          later.push(p);
          continue;
        }
        seen.add(p.id);
        const shape = `${p.from.join(',')}|${Object.keys(p.changes)
          .map((column) => (p.changes[column] === NOW ? `${column}()` : column))
          .join(',')}`;
        const group = groups.get(shape);
        if (group) group.push(p);
        else groups.set(shape, [p]);
      }
      queue = later;
      await Promise.all([...groups.values()].map(apply));
    }
    flushing = false;
  }

  return (id, from, changes) => {
    if (!batchable(changes)) return transition(db, id, from, changes);
    return new Promise<boolean>((resolve, reject) => {
      queue.push({ id, from: statuses(from), changes, resolve, reject });
      if (flushing) return;
      flushing = true;
      queueMicrotask(() => void flush()); // changes made in the same turn go together from the first
    });
  };
}

const writers = new WeakMap<Knex, Transition>();

/**
 * The guarded status change the engine makes: batched with the others of this process on the same
 * database (the poller's lanes, the dispatcher, cancels), each caller told whether its change applied.
 */
export function changeTask(db: Knex, id: string, from: TaskStatus | readonly TaskStatus[], changes: TaskChanges): Promise<boolean> {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = batchedTransitions(db)));
  return writer(id, from, changes);
}

/**
 * The due tasks a claim takes, locked. Materialized, so it runs once: as an `id in (subquery)` of
 * the UPDATE, the planner could put it on the inner side of a nested loop (on statistics that say
 * the table holds one row) and run it again for each row, each run skipping the rows the statement
 * had already updated and taking the next ones, so a claim of 4 leased 7 (test/integration/tasks/claim.test.ts).
 */
const PICK_DUE = `picked as materialized (
       select id from video_tasks
       where status in ('submitting', 'queued', 'in_progress') and next_poll_at <= now()
         and (lease_until is null or lease_until < now())
       order by next_poll_at
       limit ?
       for update skip locked)`;

const LEASE_PICKED = `update video_tasks set lease_until = now() + (? * interval '1 millisecond'), attempts = video_tasks.attempts + 1
     from picked where video_tasks.id = picked.id
     returning video_tasks.*`;

/** The claim statement (parameters: batch size, lease in ms); the benchmark explains it too. */
export const CLAIM_DUE_SQL = `with ${PICK_DUE}
     ${LEASE_PICKED}`;

/**
 * The claim and, in the same statement, whether any task waits in the gateway's queue: so an idle
 * tick (nothing due, nothing waiting) costs one indexed statement, and the dispatcher's own
 * queries run only when there is something to dispatch. One row with nulls when nothing is due.
 */
const CLAIM_DUE_NOTING_WAITING_SQL = `with ${PICK_DUE}, claimed as (${LEASE_PICKED})
  select claimed.*, w.waiting_exists
    from (select exists (select 1 from video_tasks where status = 'waiting') as waiting_exists) as w
    left join claimed on true`;

/** Claims as claimDue does, and says whether any task waits for dispatch. */
export async function claimDueNotingWaiting(db: Knex, limit: number, leaseMs: number): Promise<{ tasks: TaskRow[]; waiting: boolean }> {
  const { rows } = await db.raw<{ rows: Array<TaskRow & { waiting_exists: boolean }> }>(CLAIM_DUE_NOTING_WAITING_SQL, [limit, leaseMs]);
  const tasks: TaskRow[] = [];
  for (const { waiting_exists: _, ...task } of rows) if (task.id !== null) tasks.push(task);
  return { tasks, waiting: rows[0]?.waiting_exists === true };
}

/**
 * Ends the lease of tasks claimed but not polled (the poller stopping), so any process may claim
 * them at once; the claim's attempt is taken back. Only while the claim is still the last one
 * (its attempt count unchanged): a task whose lease ran out and was claimed again is not ours.
 */
export async function giveBack(db: Knex, claimed: ReadonlyArray<Pick<TaskRow, 'id' | 'attempts'>>): Promise<void> {
  if (claimed.length === 0) return;
  await db.raw(
    `update video_tasks as t set lease_until = null, attempts = greatest(t.attempts - 1, 0)
     from jsonb_to_recordset(?::jsonb) as v(id text, attempts int)
     where t.id = v.id and t.attempts = v.attempts and t.lease_until is not null`,
    [JSON.stringify(claimed.map(({ id, attempts }) => ({ id, attempts })))],
  );
}

/**
 * Claims up to `limit` due live tasks for `leaseMs`: a short transaction with SKIP LOCKED, so any
 * number of gateway processes share the work and a crashed one's claims expire with the lease.
 */
export async function claimDue(db: Knex, limit: number, leaseMs: number): Promise<TaskRow[]> {
  const { rows } = await db.raw<{ rows: TaskRow[] }>(CLAIM_DUE_SQL, [limit, leaseMs]);
  return rows;
}
