// Delivers queued webhooks: claims due rows (FOR UPDATE SKIP LOCKED and a lease, so replicas share
// the work and a row is sent by one at a time), POSTs the body signed as Standard Webhooks says,
// and records the attempt. A 2xx delivers; anything else (a status, a timeout, a refused address)
// is retried with exponential backoff under the same webhook-id, and given up after MAX_ATTEMPTS.
// No database transaction is open across the HTTP call.
import got from 'got';
import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';
import type { WebhookEgress } from './egress.ts';
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
  timeoutMs?: number;
}

interface Claimed {
  id: string;
  url: string;
  payload: Record<string, unknown>;
  attempts: number;
  secret: string | null;
}

export const backoffMs = (attempts: number, base: number): number => Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);

async function claim(db: Knex, limit: number): Promise<Claimed[]> {
  const { rows } = await db.raw<{ rows: Claimed[] }>(
    `with due as (
       select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
        order by next_attempt_at limit ? for update skip locked)
     update webhook_deliveries d set lease_until = now() + make_interval(secs => ?), attempts = d.attempts + 1
       from due where d.id = due.id
     returning d.id, d.url, d.payload, d.attempts, (select webhook_secret from billing_alerts a where a.customer_id = d.customer_id) as secret`,
    [limit, LEASE_SECONDS],
  );
  return rows;
}

/** One attempt: the status the receiver answered, or why there was none. */
async function post(options: DeliveryOptions, delivery: Claimed, body: string): Promise<{ status?: number; error?: string }> {
  const refusal = options.egress.refusal(delivery.url);
  if (refusal) return { error: refusal };
  try {
    const response = await got.post(delivery.url, {
      body,
      headers: { ...signedHeaders(delivery.secret ?? '', delivery.id, body), 'user-agent': 'ai-gateway-webhooks/1' },
      dnsLookup: options.egress.lookup,
      timeout: { request: options.timeoutMs ?? 10_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
    });
    return { status: response.statusCode };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { error: code === 'ERR_EGRESS_REFUSED' ? 'refused: the URL leads into an internal network' : (code ?? 'request failed') };
  }
}

/** Sends what is due now; returns how many attempts were made. */
export async function deliverDue(options: DeliveryOptions, limit = 50): Promise<number> {
  const claimed = await claim(options.db, limit);
  await Promise.all(
    claimed.map(async (delivery) => {
      const body = JSON.stringify(delivery.payload);
      const began = Date.now();
      const outcome = await post(options, delivery, body);
      const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
      const givenUp = !delivered && delivery.attempts >= MAX_ATTEMPTS;
      const entry = {
        attempt: delivery.attempts,
        at: new Date(began).toISOString(),
        status: outcome.status ?? null,
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
