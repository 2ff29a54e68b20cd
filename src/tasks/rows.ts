// Reads of the task table for the products and operators: one task, a customer's tasks of one kind
// page by page, the operators' list, the live task behind an upstream id. Reads only.
import type { Knex } from 'knex';
import { LIVE_STATUSES, type TaskRow } from './model.ts';

export async function findTask(db: Knex, id: string): Promise<TaskRow | undefined> {
  return db('video_tasks').where({ id }).first();
}

/** A task of one kind by id (a customer's video endpoints never show another kind's rows). */
export async function findTaskOfKind(db: Knex, kind: string, id: string): Promise<TaskRow | undefined> {
  return db('video_tasks').where({ id, kind }).first();
}

export async function findByIdempotencyKey(db: Knex, customerId: string, key: string): Promise<TaskRow | undefined> {
  return db('video_tasks').where({ customer_id: customerId, idempotency_key: key }).first();
}

/** A customer's tasks of one kind by creation time, after the task `after` (which must be theirs), one more than `limit`. */
export async function listTasks(
  db: Knex,
  customerId: string,
  kind: string,
  page: { after?: string; limit: number; order: 'asc' | 'desc' },
): Promise<TaskRow[]> {
  const query = db('video_tasks')
    .where({ customer_id: customerId, kind })
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

/** Every kind's tasks for operators, newest first, one more than `limit`. */
export async function listAllTasks(db: Knex, filter: { status?: string; customerId?: string; limit: number }): Promise<TaskRow[]> {
  return db('video_tasks')
    .modify((q) => {
      if (filter.status) q.where({ status: filter.status });
      if (filter.customerId) q.where({ customer_id: filter.customerId });
    })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit + 1);
}

/** The live task of a kind the customer owns whose upstream id is `upstreamId` (a background response's id). */
export async function liveTaskByUpstreamId(db: Knex, kind: string, customerId: string, upstreamId: string): Promise<TaskRow | undefined> {
  return db<TaskRow>('video_tasks').where({ kind, upstream_task_id: upstreamId, customer_id: customerId }).whereIn('status', LIVE_STATUSES).first();
}
