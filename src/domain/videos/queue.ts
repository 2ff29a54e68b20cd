// SQL of the gateway's queue in front of video providers whose accounts have a concurrency limit
// (issue 25). Waiting tasks are rows in `waiting`; nothing is sent upstream for them.
//
// The limit holds across replicas because every decision to move a task of provider P into an
// in-flight status (submitting, queued, in_progress) is taken in a transaction that first locks
// P's row in video_provider_queues (FOR UPDATE), then counts P's in-flight tasks, then commits the
// status change before the lock is released. The next holder's count (READ COMMITTED: a new
// snapshot per statement, taken after the lock was granted) sees that commit. Leaving an in-flight
// status only lowers the count, so it needs no lock. Dispatchers skip a locked row (SKIP LOCKED:
// another replica is dispatching P now); a create waits for it (milliseconds, no upstream call is
// ever made under it).
import type { Knex } from 'knex';
import type { ResolvedProvider } from '../../catalogue/types.ts';
import type { Ledger } from '../../ledger/service.ts';
import { fairOrder } from './fair-order.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';

export interface ProviderQueueRow {
  provider_id: string;
  paused_until: Date | null;
  refusals: number;
}

const IN_FLIGHT = [VideoStatus.Submitting, VideoStatus.Queued, VideoStatus.InProgress];

/** Locks the provider's row for this transaction (creating it the first time); undefined when `skip` and another holds it. */
export async function lockProvider(trx: Knex.Transaction, providerId: string, mode: 'wait' | 'skip'): Promise<ProviderQueueRow | undefined> {
  await trx.raw('insert into video_provider_queues (provider_id) values (?) on conflict (provider_id) do nothing', [providerId]);
  const query = trx('video_provider_queues').where({ provider_id: providerId }).forUpdate();
  return (mode === 'skip' ? query.skipLocked() : query).first();
}

export const isPaused = (row: Pick<ProviderQueueRow, 'paused_until'> | undefined): boolean =>
  Boolean(row?.paused_until && new Date(row.paused_until).getTime() > Date.now());

/** The provider's tasks sent (or being sent) upstream and not finished. */
export async function inFlight(trx: Knex.Transaction, providerId: string): Promise<number> {
  const [row] = await trx('video_tasks').where({ provider_id: providerId }).whereIn('status', IN_FLIGHT).count<{ n: bigint | number }[]>('* as n');
  return Number(row?.n ?? 0);
}

/** Whether tasks of the provider wait in the queue, and whether the provider is paused after a refusal. */
export async function queueState(db: Knex, providerId: string): Promise<{ waiting: boolean; paused: boolean }> {
  const { rows } = await db.raw<{ rows: Array<{ waiting: boolean; paused: boolean | null }> }>(
    `select exists (select 1 from video_tasks where provider_id = ? and status = 'waiting') as waiting,
            (select paused_until > now() from video_provider_queues where provider_id = ?) as paused`,
    [providerId, providerId],
  );
  return { waiting: Boolean(rows[0]?.waiting), paused: Boolean(rows[0]?.paused) };
}

/**
 * The provider's waiting tasks with what the fair order (fair-order.ts) needs: `seq` (order of
 * acceptance), `turn` (within the customer), `first_seq` (the customer's oldest) and `served` (a
 * rank of when the customer last had a task sent: 1 is never or longest ago). Parameters: the
 * provider id, twice.
 */
const WAITING = `select w.id, w.customer_id, w.seq, w.turn, w.first_seq,
         dense_rank() over (order by s.last_dispatched_at nulls first) as served
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
 * Only each customer's first `count` turns can be among them, so only those are read.
 */
export async function takeWaiting(
  trx: Knex.Transaction,
  providerId: string,
  count: number,
  times: { leaseMs: number; deadlineMs: number },
): Promise<VideoTaskRow[]> {
  const { rows } = await trx.raw<{ rows: Array<{ id: string; customer_id: string; seq: Counted; served: Counted }> }>(
    `select id, customer_id, seq, served from (${WAITING}) x where turn <= ?`,
    [providerId, providerId, count],
  );
  const chosen = fairOrder(rows.map((r) => ({ ...r, seq: Number(r.seq), served: Number(r.served) }))).slice(0, count);
  if (chosen.length === 0) return [];
  const taken: VideoTaskRow[] = await trx('video_tasks')
    .whereIn(
      'id',
      chosen.map((t) => t.id),
    )
    .where({ status: VideoStatus.Waiting })
    .update({
      status: VideoStatus.Submitting,
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

/** Places in the provider's queue (1: sent next) of the given waiting tasks, by the rule of fair-order.ts. */
export async function queuePositions(db: Knex, providerId: string, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.raw<{ rows: Array<{ id: string; position: Counted }> }>(
    `select id, position from (
       select id, row_number() over (order by turn, served, first_seq) as position from (${WAITING}) x) p
      where id = any(?::text[])`,
    [providerId, providerId, `{${ids.join(',')}}`],
  );
  return new Map(rows.map((r) => [r.id, Number(r.position)]));
}

/**
 * The provider refused a submission for its account's concurrency: nothing is sent to it before
 * the pause ends. The pause doubles with each refusal in a row, from `baseMs` (or the provider's
 * retry-after when longer) up to `maxMs`.
 */
export async function pauseProvider(db: Knex, providerId: string, delays: { retryAfterMs: number; baseMs: number; maxMs: number }): Promise<void> {
  const { retryAfterMs, baseMs, maxMs } = delays;
  await db.raw(
    `insert into video_provider_queues as q (provider_id, paused_until, refusals, updated_at)
     values (?, now() + (least(?::float8, greatest(?::float8, ?::float8)) * interval '1 millisecond'), 1, now())
     on conflict (provider_id) do update set
       refusals = q.refusals + 1,
       paused_until = now() + (least(?::float8, greatest(?::float8, ?::float8 * power(2, least(q.refusals, 16)))) * interval '1 millisecond'),
       updated_at = now()`,
    [providerId, maxMs, retryAfterMs, baseMs, maxMs, retryAfterMs, baseMs],
  );
}

/** The provider accepted a submission: the backoff starts over. */
export async function resumeProvider(db: Knex, providerId: string): Promise<void> {
  await db('video_provider_queues')
    .where({ provider_id: providerId })
    .andWhere((q) => q.where('refusals', '>', 0).orWhereNotNull('paused_until'))
    .update({ refusals: 0, paused_until: null, updated_at: db.fn.now() });
}

/** Providers with waiting tasks: how many wait and since when the oldest does (dispatcher and metrics). */
export async function waitingByProvider(db: Knex): Promise<Array<{ provider_id: string; depth: number; oldest_wait_s: number }>> {
  const { rows } = await db.raw<{ rows: Array<{ provider_id: string; depth: string | number | bigint; oldest_wait_s: string | number | null }> }>(
    `select provider_id, count(*) as depth, extract(epoch from now() - min(coalesce(queued_at, created_at))) as oldest_wait_s
       from video_tasks where status = 'waiting' group by provider_id order by provider_id`,
  );
  return rows.map((r) => ({ provider_id: r.provider_id, depth: Number(r.depth), oldest_wait_s: Math.max(0, Number(r.oldest_wait_s ?? 0)) }));
}

/** Waiting tasks of the provider that entered the queue more than `maxWaitMs` ago, oldest first. */
export async function overdueWaiting(db: Knex, providerId: string, maxWaitMs: number, limit = 100): Promise<string[]> {
  const rows: Array<{ id: string }> = await db('video_tasks')
    .where({ provider_id: providerId, status: VideoStatus.Waiting })
    .whereRaw(`coalesce(queued_at, created_at) < now() - (? * interval '1 millisecond')`, [maxWaitMs])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .select('id');
  return rows.map((r) => r.id);
}

/**
 * Whether a new task of the customer waits at the gateway (the provider's limit is reached, it is
 * paused, or others wait before it); when it does not, its send is the customer's turn.
 */
export async function admit(trx: Knex.Transaction, provider: ResolvedProvider, customerId: string): Promise<{ waits: boolean }> {
  const limit = provider.queue?.maxConcurrent;
  let waits: boolean;
  // No limit of ours: no lock, only what the provider's own refusals left (a pause, tasks waiting).
  if (limit === undefined) waits = Object.values(await queueState(trx, provider.id)).some(Boolean);
  else {
    const row = await lockProvider(trx, provider.id, 'wait');
    waits = isPaused(row) || (await queueState(trx, provider.id)).waiting || (await inFlight(trx, provider.id)) >= limit;
  }
  if (!waits) await recordTurns(trx, provider.id, [customerId]);
  return { waits };
}

/** Cancels a waiting task and releases its hold in one transaction; false when it left waiting first (dispatched). */
export async function cancelWaiting(db: Knex, ledger: Ledger, taskId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const changed = await trx('video_tasks')
      .where({ id: taskId, status: VideoStatus.Waiting })
      .update({ status: VideoStatus.Cancelled, completed_at: trx.fn.now(), updated_at: trx.fn.now() });
    if (changed === 1) await ledger.releaseWithin(trx, { ref: taskId, purpose: { reason: 'cancelled by the customer while waiting in the gateway queue' } });
    return changed === 1;
  });
}

/** The tasks, each waiting one with its place in its provider's queue. */
export async function withPositions(db: Knex, tasks: VideoTaskRow[]): Promise<VideoTaskRow[]> {
  const byProvider = new Map<string, string[]>();
  for (const t of tasks) if (t.status === VideoStatus.Waiting) byProvider.set(t.provider_id, [...(byProvider.get(t.provider_id) ?? []), t.id]);
  const positions = new Map<string, number>();
  for (const [provider, ids] of byProvider) for (const [id, position] of await queuePositions(db, provider, ids)) positions.set(id, position);
  return tasks.map((t) => (positions.has(t.id) ? { ...t, queue_position: positions.get(t.id)! } : t));
}
