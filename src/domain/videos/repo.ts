// SQL of video tasks. Status changes are guarded by the status they leave, so concurrent pollers,
// cancels and operators change a task once.
import type { Knex } from 'knex';
import { type VideoStatus, type VideoTaskRow } from './model.ts';

export async function findTask(db: Knex, id: string): Promise<VideoTaskRow | undefined> {
  return db('video_tasks').where({ id }).first();
}

export async function findByIdempotencyKey(db: Knex, customerId: string, key: string): Promise<VideoTaskRow | undefined> {
  return db('video_tasks').where({ customer_id: customerId, idempotency_key: key }).first();
}

/** A customer's tasks by creation time, after the task `after` (which must be theirs), one more than `limit`. */
export async function listTasks(db: Knex, customerId: string, page: { after?: string; limit: number; order: 'asc' | 'desc' }): Promise<VideoTaskRow[]> {
  const query = db('video_tasks')
    .where({ customer_id: customerId })
    .orderBy([
      { column: 'created_at', order: page.order },
      { column: 'id', order: page.order },
    ])
    .limit(page.limit + 1);
  // The cursor row is read in the same statement: its created_at keeps PostgreSQL's microseconds.
  if (page.after)
    query.whereRaw(`(created_at, id) ${page.order === 'desc' ? '<' : '>'} (select created_at, id from video_tasks where id = ? and customer_id = ?)`, [
      page.after,
      customerId,
    ]);
  return query;
}

/** Applies `changes` only if the task is still in `from`; true when it was. */
export async function transition(db: Knex, id: string, from: VideoStatus | readonly VideoStatus[], changes: Record<string, unknown>): Promise<boolean> {
  const updated = await db('video_tasks')
    .where({ id })
    .whereIn('status', typeof from === 'string' ? [from] : [...from])
    .update({ ...changes, updated_at: db.fn.now() });
  return updated === 1;
}

/** The claim statement (parameters: lease in ms, batch size); the benchmark explains it too. */
export const CLAIM_DUE_SQL = `update video_tasks set lease_until = now() + (? * interval '1 millisecond'), attempts = attempts + 1
     where id in (
       select id from video_tasks
       where status in ('submitting', 'queued', 'in_progress') and next_poll_at <= now()
         and (lease_until is null or lease_until < now())
       order by next_poll_at
       limit ?
       for update skip locked)
     returning *`;

/**
 * Claims up to `limit` due live tasks for `leaseMs`: a short transaction with SKIP LOCKED, so any
 * number of gateway processes share the work and a crashed one's claims expire with the lease.
 */
export async function claimDue(db: Knex, limit: number, leaseMs: number): Promise<VideoTaskRow[]> {
  const { rows } = await db.raw<{ rows: VideoTaskRow[] }>(CLAIM_DUE_SQL, [leaseMs, limit]);
  return rows;
}
