// Delivers queued webhooks: claims due rows (FOR UPDATE SKIP LOCKED and a lease, so replicas share
// the work and a row is sent by one at a time), POSTs the body signed as Standard Webhooks says,
// and records the attempt. A 2xx delivers; anything else (a status, a timeout, a refused address)
// is retried with exponential backoff under the same webhook-id, and given up after MAX_ATTEMPTS.
// Every attempt goes to the customer's webhook URL in force when it is made (changed since the
// webhook was queued: the new one; removed: given up), and reads only the start of the answer
// (src/domain/alerts/receiver-call.ts). No database transaction is open across the HTTP call.
import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';
import type { WebhookEgress } from './egress.ts';
import { callReceiver, type AttemptOutcome } from './receiver-call.ts';
import { signedHeaders } from './signature.ts';

export const MAX_ATTEMPTS = 12;
const LEASE_SECONDS = 60;
const MAX_BACKOFF_MS = 6 * 3_600_000;

export interface DeliveryOptions {
  db: Knex;
  logger: Logger;
  egress: WebhookEgress;
  /** The first retry's delay; each next one doubles (default 5 s, at most 6 h). */
  retryBaseMs?: number;
  /** One attempt's hard deadline: connect, the answer's head and the bytes of it that are logged. */
  timeoutMs?: number;
}

interface Claimed {
  id: string;
  /** The customer's webhook URL now; null: removed since the webhook was queued. */
  url: string | null;
  payload: Record<string, unknown>;
  attempts: number;
  secret: string | null;
}

export const backoffMs = (attempts: number, base: number): number => Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);

async function claim(db: Knex, limit: number): Promise<Claimed[]> {
  const { rows } = await db.raw<{ rows: Claimed[] }>(
    `with due as (
       select w.id, a.webhook_url, a.webhook_secret from webhook_deliveries w
         left join billing_alerts a on a.customer_id = w.customer_id
        where w.status = 'pending' and w.next_attempt_at <= now() and (w.lease_until is null or w.lease_until < now())
        order by w.next_attempt_at limit ? for update of w skip locked)
     update webhook_deliveries d set lease_until = now() + make_interval(secs => ?), attempts = d.attempts + 1,
            url = coalesce(due.webhook_url, d.url)
       from due where d.id = due.id
     returning d.id, due.webhook_url as url, d.payload, d.attempts, due.webhook_secret as secret`,
    [limit, LEASE_SECONDS],
  );
  return rows;
}

/** One attempt, to the URL in force. */
async function attempt(options: DeliveryOptions, delivery: Claimed, body: string): Promise<AttemptOutcome> {
  if (delivery.url === null) return { error: 'no webhook_url: the customer removed it after this webhook was queued' };
  const headers = { ...signedHeaders(delivery.secret ?? '', delivery.id, body), 'user-agent': 'ai-gateway-webhooks/1' };
  return callReceiver(options.egress, { url: delivery.url, body, headers, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
}

/** Sends what is due now; returns how many attempts were made. */
export async function deliverDue(options: DeliveryOptions, limit = 50): Promise<number> {
  const claimed = await claim(options.db, limit);
  await Promise.all(
    claimed.map(async (delivery) => {
      const body = JSON.stringify(delivery.payload);
      const began = Date.now();
      const outcome = await attempt(options, delivery, body);
      const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
      const givenUp = !delivered && (delivery.attempts >= MAX_ATTEMPTS || delivery.url === null);
      const entry = {
        attempt: delivery.attempts,
        at: new Date(began).toISOString(),
        url: delivery.url,
        status: outcome.status ?? null,
        body: outcome.body ?? null,
        error: outcome.error ?? null,
        ms: Date.now() - began,
      };
      await options
        .db('webhook_deliveries')
        .where({ id: delivery.id })
        .update({
          status: delivered ? 'delivered' : givenUp ? 'failed' : 'pending',
          delivered_at: delivered ? options.db.fn.now() : null,
          next_attempt_at: delivered || givenUp ? null : new Date(Date.now() + backoffMs(delivery.attempts, options.retryBaseMs ?? 5_000)),
          lease_until: null,
          last_status: outcome.status ?? null,
          last_error: outcome.error ?? null,
          log: options.db.raw('log || ?::jsonb', [JSON.stringify([entry])]),
        });
      if (!delivered)
        options.logger.warn(
          { webhook_id: delivery.id, attempt: delivery.attempts, status: outcome.status, error: outcome.error, given_up: givenUp },
          'webhook not delivered',
        );
    }),
  );
  return claimed.length;
}
