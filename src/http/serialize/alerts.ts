import type { AlertSettings } from '../../domain/alerts/settings.ts';
import type { DeliveryRow } from '../../domain/alerts/service.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminComponents, PublicComponents } from '../../types.ts';

export const alertSettingsToWire = (s: AlertSettings): PublicComponents['schemas']['AlertSettings'] => ({
  object: 'alert_settings',
  customer_id: s.customerId,
  low_balance_threshold: s.lowBalanceThreshold === null ? null : formatMicros(s.lowBalanceThreshold),
  armed: s.armed,
  webhook_url: s.webhookUrl,
  webhook_secret: s.webhookSecret,
  video_events: s.videoEvents,
  updated_at: s.updatedAt ? s.updatedAt.toISOString() : null,
});

const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);

export const deliveryToWire = (d: DeliveryRow): AdminComponents['schemas']['WebhookDelivery'] => ({
  object: 'webhook_delivery',
  id: d.id,
  customer_id: d.customer_id,
  type: d.type,
  url: d.url,
  payload: d.payload,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: iso(d.next_attempt_at),
  last_status: d.last_status,
  last_error: d.last_error,
  log: d.log,
  created_at: new Date(d.created_at).toISOString(),
  delivered_at: iso(d.delivered_at),
});
