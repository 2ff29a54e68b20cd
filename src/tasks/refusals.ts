// Whose refusal a provider's 429 is, and the pause that follows. A provider account's concurrency
// or rate refusal (429 provider_concurrency) of one customer's submission may be the account's
// (full for everyone: every key shares its limit) or follow that customer's own submissions (a
// rate limit of the endpoint or model only they use, content the provider throttles). The queue
// tells them apart by what the provider did just before, kept on the provider's row:
// - right after it accepted another customer's task: the customer's. Only that customer's tasks at
//   this provider are paused (video_queue_turns.paused_until, doubling with their refusals in a
//   row); everyone else's go on being sent.
// - right after it refused another customer's task: refusals across customers in a row, the
//   account's. The provider is paused for everyone (video_provider_queues.paused_until, doubling
//   with the account's refusals in a row), as before.
// - right after this customer's own acceptance, or with nothing known: one customer alone cannot
//   be told apart from a full account, so the account's (the cautious reading).
// - right after this customer's own refusal: the same reading as that one.
// Any acceptance ends the account's streak and the pause of the customer it was for. A full
// account first read as one customer's costs one more refused call (the next customer's), which
// then pauses the provider.
import type { Knex } from 'knex';
import { lockProvider } from './queue.ts';

/** What the provider did last, as its row keeps it. */
export interface LastSubmission {
  /** Whose submission it answered last (null: none since the row exists). */
  customerId: string | null;
  refused: boolean;
  /** The account's refusals in a row (0: its last refusal, if any, was read as a customer's). */
  accountRefusals: number;
}

export function refusalScope(last: LastSubmission, customerId: string): 'customer' | 'account' {
  if (last.customerId === null) return 'account';
  if (last.customerId !== customerId) return last.refused ? 'account' : 'customer';
  return last.refused && last.accountRefusals === 0 ? 'customer' : 'account';
}

export interface PauseDelays {
  /** The provider's retry-after, when it gave one (0 otherwise). */
  retryAfterMs: number;
  /** The first step (the poll interval); each refusal in a row doubles it. */
  baseMs: number;
  /** The longest pause. */
  maxMs: number;
}

/** The pause after `refusals` earlier refusals in a row, in SQL (parameters: max, retry-after, base). */
const PAUSE = (refusals: string) => `now() + (least(?::float8, greatest(?::float8, ?::float8 * power(2, least(${refusals}, 16)))) * interval '1 millisecond')`;

/**
 * Records a concurrency refusal of the customer's task and pauses the account or the customer (see
 * above); returns which. One short transaction under the provider's row lock, so refusals recorded
 * at once by several replicas are read in one order.
 */
export async function recordRefusal(db: Knex, providerId: string, customerId: string, delays: PauseDelays): Promise<'customer' | 'account'> {
  const { retryAfterMs, baseMs, maxMs } = delays;
  return db.transaction(async (trx) => {
    const row = (await lockProvider(trx, providerId, 'wait'))!;
    const scope = refusalScope({ customerId: row.last_customer_id, refused: row.last_refused, accountRefusals: row.refusals }, customerId);
    if (scope === 'account')
      await trx.raw(
        `update video_provider_queues set refusals = refusals + 1, paused_until = ${PAUSE('refusals')},
                last_customer_id = ?, last_refused = true, updated_at = now() where provider_id = ?`,
        [maxMs, retryAfterMs, baseMs, customerId, providerId],
      );
    else {
      await trx.raw(`update video_provider_queues set last_customer_id = ?, last_refused = true, updated_at = now() where provider_id = ?`, [
        customerId,
        providerId,
      ]);
      await trx.raw(
        `insert into video_queue_turns as s (provider_id, customer_id, last_dispatched_at, refusals, paused_until)
         values (?, ?, now(), 1, ${PAUSE('0')})
         on conflict (provider_id, customer_id) do update set refusals = s.refusals + 1, paused_until = ${PAUSE('s.refusals')}`,
        [providerId, customerId, maxMs, retryAfterMs, baseMs, maxMs, retryAfterMs, baseMs],
      );
    }
    return scope;
  });
}

/**
 * The provider accepted the customer's submission: the account's backoff starts over, and so does
 * the customer's. One statement; the provider's row is written (and locked) only when this changes
 * it (a pause, a streak, another customer last), created when it does not exist yet. A customer
 * paused after its own refusals always changes it (its refusal was the last answer, or another
 * customer's acceptance since), so its pause ends only then: the provider's row is locked before
 * the customer's, in the order every other writer of both takes them (no deadlock).
 */
export async function recordAccepted(db: Knex, providerId: string, customerId: string): Promise<void> {
  await db.raw(
    `with changed as (
       update video_provider_queues set refusals = 0, paused_until = null, last_customer_id = ?, last_refused = false, updated_at = now()
        where provider_id = ? and (refusals > 0 or paused_until is not null or last_refused or last_customer_id is distinct from ?)
       returning provider_id),
     created as (
       insert into video_provider_queues (provider_id, last_customer_id)
       select ?, ? where not exists (select 1 from changed)
       on conflict (provider_id) do nothing
       returning provider_id)
     update video_queue_turns set refusals = 0, paused_until = null
      where provider_id = ? and customer_id = ? and (refusals > 0 or paused_until is not null) and exists (select 1 from changed)`,
    [customerId, providerId, customerId, providerId, customerId, providerId, customerId],
  );
}
