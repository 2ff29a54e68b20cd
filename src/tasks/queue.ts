// SQL of the gateway's queue in front of providers whose accounts have a concurrency limit (issue
// 25), or that refused for it (refusals.ts). Waiting tasks are rows in `waiting`; nothing is sent
// upstream for them. The order they leave in is turns.ts's.
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
import type { ResolvedProvider } from '../catalogue/types.ts';
import type { Ledger } from '../ledger/service.ts';
import { TaskStatus } from './model.ts';
import { recordTurns } from './turns.ts';

export interface ProviderQueueRow {
  provider_id: string;
  /** Refused for the account's concurrency: nothing is sent to the provider before this. */
  paused_until: Date | null;
  /** The account's refusals in a row (refusals.ts). */
  refusals: number;
  /** Whose submission the provider answered last, and whether it refused it (refusals.ts). */
  last_customer_id: string | null;
  last_refused: boolean;
}

const IN_FLIGHT = [TaskStatus.Submitting, TaskStatus.Queued, TaskStatus.InProgress];

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

/**
 * Whether tasks of the provider wait that could be sent before a new one of the customer (a paused
 * customer's do not: they wait for their own pause), whether the provider is paused after the
 * account's refusals, and whether the customer is paused after its own.
 */
export async function queueState(db: Knex, providerId: string, customerId: string): Promise<{ waiting: boolean; paused: boolean; customerPaused: boolean }> {
  const { rows } = await db.raw<{ rows: Array<{ waiting: boolean; paused: boolean | null; customer_paused: boolean | null }> }>(
    `select exists (select 1 from video_tasks t where t.provider_id = ? and t.status = 'waiting'
                      and not exists (select 1 from video_queue_turns s
                                       where s.provider_id = t.provider_id and s.customer_id = t.customer_id and s.paused_until > now())) as waiting,
            (select paused_until > now() from video_provider_queues where provider_id = ?) as paused,
            (select paused_until > now() from video_queue_turns where provider_id = ? and customer_id = ?) as customer_paused`,
    [providerId, providerId, providerId, customerId],
  );
  return { waiting: Boolean(rows[0]?.waiting), paused: Boolean(rows[0]?.paused), customerPaused: Boolean(rows[0]?.customer_paused) };
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
    .where({ provider_id: providerId, status: TaskStatus.Waiting })
    .whereRaw(`coalesce(queued_at, created_at) < now() - (? * interval '1 millisecond')`, [maxWaitMs])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .select('id');
  return rows.map((r) => r.id);
}

/**
 * Whether a new task of the customer waits at the gateway (the provider's limit is reached, the
 * provider or this customer is paused, or others wait before it); when it does not, its send is the
 * customer's turn.
 */
export async function admit(trx: Knex.Transaction, provider: ResolvedProvider, customerId: string): Promise<{ waits: boolean }> {
  const limit = provider.queue?.maxConcurrent;
  let waits: boolean;
  // No limit of ours: no lock, only what the provider's own refusals left (pauses, tasks waiting).
  if (limit === undefined) waits = Object.values(await queueState(trx, provider.id, customerId)).some(Boolean);
  else {
    const row = await lockProvider(trx, provider.id, 'wait');
    waits = isPaused(row) || Object.values(await queueState(trx, provider.id, customerId)).some(Boolean) || (await inFlight(trx, provider.id)) >= limit;
  }
  if (!waits) await recordTurns(trx, provider.id, [customerId]);
  return { waits };
}

/** Cancels a waiting task and releases its hold in one transaction; false when it left waiting first (dispatched). */
export async function cancelWaiting(db: Knex, ledger: Ledger, taskId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const changed = await trx('video_tasks')
      .where({ id: taskId, status: TaskStatus.Waiting })
      .update({ status: TaskStatus.Cancelled, completed_at: trx.fn.now(), updated_at: trx.fn.now() });
    if (changed === 1) await ledger.releaseWithin(trx, { ref: taskId, purpose: { reason: 'cancelled by the customer while waiting in the gateway queue' } });
    return changed === 1;
  });
}

/** Fails a waiting task past its provider's bound and releases its hold, in one transaction (or neither); false when it left waiting first. */
export async function expireWaiting(db: Knex, ledger: Ledger, taskId: string, maxWaitMs: number): Promise<boolean> {
  const bound = maxWaitMs < 120_000 ? `${Math.round(maxWaitMs / 1000)} seconds` : `${Math.round(maxWaitMs / 60_000)} minutes`;
  return db.transaction(async (trx) => {
    const updated = await trx('video_tasks')
      .where({ id: taskId, status: TaskStatus.Waiting })
      .update({
        status: TaskStatus.Failed,
        error: JSON.stringify({
          code: 'queue_timeout',
          message: `The provider had no room for the task within ${bound}; it was never started and nothing was charged.`,
        }),
        completed_at: trx.fn.now(),
        updated_at: trx.fn.now(),
      });
    if (updated === 1) await ledger.releaseWithin(trx, { ref: taskId, purpose: { reason: 'waited too long in the gateway queue' } });
    return updated === 1;
  });
}
