// Whose turn it is at a provider: the waiting tasks in fair order (fair-order.ts, here in SQL for
// the queue positions customers see), taking them for dispatch, and the record of when each customer
// last had a task sent (video_queue_turns). A customer paused after its own refusals (refusals.ts)
// is skipped until its pause ends; its tasks show after everyone else's.
import type { Knex } from 'knex';
import { fairOrder } from './fair-order.ts';
import { TaskStatus, type TaskRow } from './model.ts';

/**
 * The provider's waiting tasks with what the fair order (fair-order.ts) needs: `seq` (order of
 * acceptance), `turn` (within the customer), `first_seq` (the customer's oldest), `served` (a rank
 * of when the customer last had a task sent: 1 is never or longest ago) and `paused` (the customer
 * waits for its own pause). Parameters: the provider id, twice.
 */
const WAITING = `select w.id, w.customer_id, w.seq, w.turn, w.first_seq,
         dense_rank() over (order by s.last_dispatched_at nulls first) as served,
         coalesce(s.paused_until > now(), false) as paused
    from (select a.id, a.customer_id, a.seq,
                 row_number() over (partition by a.customer_id order by a.seq) as turn,
                 min(a.seq) over (partition by a.customer_id) as first_seq
            from (select id, customer_id, row_number() over (order by created_at, id) as seq
                    from video_tasks where provider_id = ? and status = 'waiting') a) w
    left join video_queue_turns s on s.provider_id = ? and s.customer_id = w.customer_id`;

type Counted = string | number | bigint;

/**
 * Takes up to `count` waiting tasks of the provider in fair order and moves them to submitting,
 * with the submission lease and a deadline counted from now; their customers' turns are recorded.
 * Only each customer's first `count` turns can be among them, so only those are read; a paused
 * customer's are not.
 */
export async function takeWaiting(
  trx: Knex.Transaction,
  providerId: string,
  count: number,
  times: { leaseMs: number; deadlineMs: number },
): Promise<TaskRow[]> {
  const { rows } = await trx.raw<{ rows: Array<{ id: string; customer_id: string; seq: Counted; served: Counted }> }>(
    `select id, customer_id, seq, served from (${WAITING}) x where turn <= ? and not paused`,
    [providerId, providerId, count],
  );
  const chosen = fairOrder(rows.map((r) => ({ ...r, seq: Number(r.seq), served: Number(r.served) }))).slice(0, count);
  if (chosen.length === 0) return [];
  const taken: TaskRow[] = await trx('video_tasks')
    .whereIn(
      'id',
      chosen.map((t) => t.id),
    )
    .where({ status: TaskStatus.Waiting })
    .update({
      status: TaskStatus.Submitting,
      next_poll_at: trx.raw(`now() + (? * interval '1 millisecond')`, [times.leaseMs]),
      deadline_at: trx.raw(`now() + (? * interval '1 millisecond')`, [times.deadlineMs]),
      lease_until: null,
      updated_at: trx.fn.now(),
    })
    .returning('*');
  const order = new Map(chosen.map((t, i) => [t.id, i]));
  taken.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  await recordTurns(
    trx,
    providerId,
    taken.map((t) => t.customer_id),
  );
  return taken;
}

/** The customers (in the order they were served) had a task of the provider sent now. */
export async function recordTurns(trx: Knex.Transaction, providerId: string, customerIds: readonly string[]): Promise<void> {
  if (customerIds.length === 0) return;
  // Each customer once, at its last task's place; one microsecond apart, so that the order within
  // one dispatch is kept for the next.
  const last = new Map(customerIds.map((id, i) => [id, i]));
  const ordered = [...last.keys()].sort((a, b) => last.get(a)! - last.get(b)!);
  await trx.raw(
    `insert into video_queue_turns (provider_id, customer_id, last_dispatched_at)
     select ?, c.customer_id, now() + (c.n * interval '1 microsecond') from unnest(?::text[]) with ordinality as c(customer_id, n)
     on conflict (provider_id, customer_id) do update set last_dispatched_at = greatest(video_queue_turns.last_dispatched_at, excluded.last_dispatched_at)`,
    [providerId, `{${ordered.join(',')}}`],
  );
}

/** Places in the provider's queue (1: sent next) of the given waiting tasks, by the rule of fair-order.ts, paused customers last. */
export async function queuePositions(db: Knex, providerId: string, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: Array<{ id: string; position: Counted }> }>(
    `select id, position from (
       select id, row_number() over (order by paused, turn, served, first_seq) as position from (${WAITING}) x) p
      where id = any(?::text[])`,
    [providerId, providerId, `{${ids.join(',')}}`],
  );
  return new Map(rows.map((r) => [r.id, Number(r.position)]));
}

/** The tasks, each waiting one with its place in its provider's queue. */
export async function withPositions<T extends TaskRow>(db: Knex, tasks: T[]): Promise<T[]> {
  const byProvider = new Map<string, string[]>();
  for (const t of tasks) if (t.status === TaskStatus.Waiting) byProvider.set(t.provider_id, [...(byProvider.get(t.provider_id) ?? []), t.id]);
  const positions = new Map<string, number>();
  for (const [provider, ids] of byProvider) for (const [id, position] of await queuePositions(db, provider, ids)) positions.set(id, position);
  return tasks.map((t) => (positions.has(t.id) ? { ...t, queue_position: positions.get(t.id)! } : t));
}
