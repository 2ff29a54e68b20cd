// Marks tasks whose terminal state has been announced (a webhook queued for it), so each is
// announced once. The caller picks the tasks (its own rules: who asked for events, since when) and
// queues the announcements in the same transaction.
import type { Knex } from 'knex';

export interface Announced {
  id: string;
  customer_id: string;
  status: string;
  model_id: string;
  billed_seconds: number | null;
  billed_tier: string | null;
  billed_amount: string | null;
  error: unknown;
}

/** Marks the given finished tasks announced, those not yet marked only; returns what the announcements say of them. */
export async function markAnnounced(trx: Knex.Transaction, ids: readonly string[]): Promise<Announced[]> {
  if (ids.length === 0) return [];
  const { rows } = await trx.raw<{ rows: Announced[] }>(
    `update video_tasks set announced_at = now()
      where id = any(?::text[]) and announced_at is null and status in ('completed', 'failed', 'cancelled')
      returning id, customer_id, status, model_id, billed_seconds, billed_tier, billed_amount::text as billed_amount, error`,
    [`{${ids.join(',')}}`],
  );
  return rows;
}
