// A customer's alert settings: the low-balance threshold (and whether it is armed), the webhook
// URL with its signing secret, and whether video tasks' terminal states are announced.
import type { Knex } from 'knex';
import { newWebhookSecret } from './signature.ts';

export interface AlertSettings {
  customerId: string;
  lowBalanceThreshold: bigint | null;
  /** True while the balance is at or above the threshold: the next crossing below sends one webhook. */
  armed: boolean;
  webhookUrl: string | null;
  /** `whsec_...`; minted on the first change, kept until rotated. */
  webhookSecret: string | null;
  videoEvents: boolean;
  updatedAt: Date | null;
}

export interface AlertUpdate {
  /** Micro-units; null removes the threshold. */
  lowBalanceThreshold?: bigint | null;
  webhookUrl?: string | null;
  videoEvents?: boolean;
  rotateSecret?: boolean;
}

interface Row {
  customer_id: string;
  low_balance_threshold: bigint | null;
  armed: boolean;
  webhook_url: string | null;
  webhook_secret: string;
  video_events: boolean;
  updated_at: Date;
}

const toSettings = (row: Row): AlertSettings => ({
  customerId: row.customer_id,
  lowBalanceThreshold: row.low_balance_threshold === null ? null : BigInt(row.low_balance_threshold),
  armed: row.armed,
  webhookUrl: row.webhook_url,
  webhookSecret: row.webhook_secret,
  videoEvents: row.video_events,
  updatedAt: new Date(row.updated_at),
});

export async function readSettings(db: Knex, customerId: string): Promise<AlertSettings> {
  const row = await db('billing_alerts').where({ customer_id: customerId }).first<Row | undefined>();
  if (row) return toSettings(row);
  return { customerId, lowBalanceThreshold: null, armed: true, webhookUrl: null, webhookSecret: null, videoEvents: false, updatedAt: null };
}

/**
 * Applies the fields given. A new threshold arms the alert again: the next check compares the
 * balance with it (already below: one webhook). Switching video events on announces tasks that
 * end from now on, not the customer's history.
 */
export async function writeSettings(db: Knex, customerId: string, update: AlertUpdate): Promise<AlertSettings> {
  const set: Record<string, unknown> = { updated_at: db.fn.now() };
  if (update.lowBalanceThreshold !== undefined) {
    set.low_balance_threshold = update.lowBalanceThreshold === null ? null : update.lowBalanceThreshold.toString();
    set.armed = true;
  }
  if (update.webhookUrl !== undefined) set.webhook_url = update.webhookUrl;
  if (update.videoEvents !== undefined) {
    set.video_events = update.videoEvents;
    set.video_events_since = update.videoEvents
      ? db.raw('coalesce(case when billing_alerts.video_events then billing_alerts.video_events_since end, now())')
      : null;
  }
  if (update.rotateSecret) set.webhook_secret = newWebhookSecret();
  const insert = {
    customer_id: customerId,
    low_balance_threshold: set.low_balance_threshold ?? null,
    webhook_url: update.webhookUrl ?? null,
    webhook_secret: newWebhookSecret(),
    video_events: update.videoEvents ?? false,
    video_events_since: update.videoEvents ? db.fn.now() : null,
  };
  const [row] = await db('billing_alerts').insert(insert).onConflict('customer_id').merge(set).returning('*');
  return toSettings(row as Row);
}
