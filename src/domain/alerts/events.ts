// What turns into a webhook, found by the database in one statement each, so any number of
// replicas may look at once and each event is queued once:
// - a low balance: a customer's available balance (credits - debits - what requests and tasks
//   hold; credit grants count as available, as GET /v1/wallet shows) below its armed threshold
//   disarms the alert and queues one `balance.low`; at or above the threshold again re-arms it.
//   The row lock of the conditional update is the guard: of two checks at once, one disarms.
// - a video task that reached a terminal state (completed, failed, cancelled) after its customer
//   switched video events on: marked announced and queued once as `video.<status>`.
import type { Knex } from 'knex';
import { markAnnounced } from '../../tasks/announce.ts';

/** micro-units (non-negative bigint) as the wire's 6-decimal string, in SQL. */
const money = (column: string) => `((${column}) / 1000000)::text || '.' || lpad(((${column}) % 1000000)::text, 6, '0')`;
const NOW_TEXT = `to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const MESSAGE_ID = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/** Disarms crossed thresholds (queuing their webhooks) and re-arms recovered ones. Returns the crossings. */
export async function lowBalanceCrossings(db: Knex, currency: string): Promise<number> {
  const { rows } = await db.raw<{ rows: Array<{ customer_id: string }> }>(
    `with balance as (
       select a.customer_id, a.low_balance_threshold as threshold,
              (w.credits_posted - w.debits_posted
                - coalesce((select sum(r.amount) from reservations r
                             where r.customer_id = a.customer_id and r.status = 'pending' and r.kind <> 'grant'), 0))::bigint as available
         from billing_alerts a join wallets w on w.customer_id = a.customer_id
        where a.low_balance_threshold is not null),
     crossed as (
       update billing_alerts a set armed = false, updated_at = now()
         from balance b
        where a.customer_id = b.customer_id and a.armed and b.available < b.threshold
       returning a.customer_id, a.webhook_url, greatest(b.available, 0) as available, b.threshold),
     rearmed as (
       update billing_alerts a set armed = true, updated_at = now()
         from balance b
        where a.customer_id = b.customer_id and not a.armed and b.available >= b.threshold
       returning a.customer_id),
     queued as (
       insert into webhook_deliveries (id, customer_id, type, url, payload, next_attempt_at)
       select ${MESSAGE_ID}, customer_id, 'balance.low', webhook_url,
              jsonb_build_object('type', 'balance.low', 'timestamp', ${NOW_TEXT}, 'data', jsonb_build_object(
                'customer_id', customer_id, 'available', ${money('available')}, 'threshold', ${money('threshold')}, 'currency', ?::text)),
              now()
         from crossed where webhook_url is not null
       returning id)
     select customer_id from crossed`,
    [currency],
  );
  return rows.length;
}

/**
 * Queues the terminal states of tasks whose customers asked for them; returns how many. One
 * transaction: the due tasks are locked (SKIP LOCKED: replicas share them), marked announced by the
 * task engine, and their deliveries queued, all or nothing.
 */
export async function videoTerminalStates(db: Knex, currency: string, limit = 200): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows: due } = await trx.raw<{ rows: Array<{ id: string; webhook_url: string }> }>(
      `select t.id, a.webhook_url
         from billing_alerts a
         join video_tasks t on t.customer_id = a.customer_id
        where a.video_events and a.webhook_url is not null
          and t.announced_at is null and t.status in ('completed', 'failed', 'cancelled') and t.completed_at >= a.video_events_since
        order by t.completed_at
        limit ?
        for update of t skip locked`,
      [limit],
    );
    const urls = new Map(due.map((d) => [d.id, d.webhook_url]));
    const marked = (await markAnnounced(trx, [...urls.keys()])).map((task) => ({ ...task, webhook_url: urls.get(task.id) }));
    if (marked.length === 0) return 0;
    await trx.raw(
      `insert into webhook_deliveries (id, customer_id, type, url, payload, next_attempt_at)
       select ${MESSAGE_ID}, customer_id, 'video.' || status, webhook_url,
              jsonb_build_object('type', 'video.' || status, 'timestamp', ${NOW_TEXT}, 'data', jsonb_build_object(
                'task_id', id, 'status', status, 'model', model_id, 'billed_seconds', billed_seconds, 'billed_tier', billed_tier,
                'billed_amount', case when billed_amount is null then null else ${money('billed_amount')} end, 'currency', ?::text, 'error', error)),
              now()
         from jsonb_to_recordset(?::jsonb) as m(id text, customer_id text, status text, model_id text, billed_seconds int,
                                                billed_tier text, billed_amount bigint, error jsonb, webhook_url text)`,
      [currency, JSON.stringify(marked)],
    );
    return marked.length;
  });
}
