// Low-balance alerts and video events as signed webhooks (issue 28): a customer (or an operator
// for it) sets a threshold and a URL; a crossing below queues one webhook, a recovery re-arms it;
// the tick queues events and delivers them, retried with backoff, every attempt logged.
import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';
import { parseMicros } from '../../shared/money.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import { AlertError } from './errors.ts';
import { deliverDue } from './delivery.ts';
import type { WebhookEgress } from './egress.ts';
import { lowBalanceCrossings, videoTerminalStates } from './events.ts';
import { readSettings, writeSettings, type AlertSettings, type AlertUpdate } from './settings.ts';

/** An update as the wire gives it: a threshold as a decimal string. */
export interface AlertChange {
  low_balance_threshold?: string | null;
  webhook_url?: string | null;
  video_events?: boolean;
  rotate_secret?: boolean;
}

export interface DeliveryRow {
  id: string;
  customer_id: string;
  type: string;
  url: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  /** `url` and `body` (the start of the answer) on attempts logged since they are recorded. */
  log: Array<{ attempt: number; at: string; url?: string | null; status: number | null; body?: string | null; error: string | null; ms: number }>;
  created_at: Date;
  delivered_at: Date | null;
}

export function createAlerts(deps: { db: Knex; logger: Logger; discovery: DiscoveryService; egress: WebhookEgress; retryBaseMs?: number; timeoutMs?: number }) {
  const { db } = deps;
  return {
    settings: (customerId: string): Promise<AlertSettings> => readSettings(db, customerId),

    async update(customerId: string, change: AlertChange): Promise<AlertSettings | Failure> {
      const update: AlertUpdate = {};
      if (change.low_balance_threshold !== undefined)
        update.lowBalanceThreshold = change.low_balance_threshold === null ? null : parseMicros(change.low_balance_threshold);
      if (change.webhook_url !== undefined) {
        const refusal = change.webhook_url === null ? undefined : deps.egress.refusal(change.webhook_url);
        if (refusal) return new Failure(AlertError.WebhookUrlRefused, refusal, { param: 'webhook_url' });
        update.webhookUrl = change.webhook_url;
      }
      if (change.video_events !== undefined) update.videoEvents = change.video_events;
      if (change.rotate_secret) update.rotateSecret = true;
      const current = await readSettings(db, customerId);
      if ((update.videoEvents ?? current.videoEvents) && (update.webhookUrl === undefined ? current.webhookUrl : update.webhookUrl) === null)
        return new Failure(AlertError.WebhookUrlRequired, 'video_events needs a webhook_url to announce tasks to.', { param: 'webhook_url' });
      return writeSettings(db, customerId, update);
    },

    /** Queues what crossed or ended since the last look; returns how many events. */
    async check(): Promise<number> {
      const currency = deps.discovery.currency();
      return (await lowBalanceCrossings(db, currency)) + (await videoTerminalStates(db, currency));
    },

    /** Sends the deliveries that are due; returns how many attempts. */
    deliver: (): Promise<number> => deliverDue(deps),

    /** The tick: queue, then send. */
    async tick(): Promise<void> {
      await this.check();
      await this.deliver();
    },

    async deliveries(filter: { customerId?: string; status?: string; limit: number; before?: string }): Promise<{ rows: DeliveryRow[]; hasMore: boolean }> {
      const rows: DeliveryRow[] = await db('webhook_deliveries')
        .modify((q) => {
          if (filter.customerId) q.where({ customer_id: filter.customerId });
          if (filter.status) q.where({ status: filter.status });
          if (filter.before) q.whereRaw('(created_at, id) < (select created_at, id from webhook_deliveries where id = ?)', [filter.before]);
        })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(filter.limit + 1);
      return { rows: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
    },
  };
}

export type Alerts = ReturnType<typeof createAlerts>;
