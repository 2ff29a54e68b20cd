import { formatMicros } from '../../shared/money.ts';
import type { TaskRow } from '../../tasks/model.ts';
import type { AdminComponents } from '../../types.ts';

const iso = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());

export const adminVideoTaskToWire = (task: TaskRow): AdminComponents['schemas']['AdminVideoTask'] => ({
  id: task.id,
  object: 'admin.video_task',
  customer_id: task.customer_id,
  model: task.model_id,
  provider: task.provider_id,
  upstream_model: task.upstream_model,
  upstream_task_id: task.upstream_task_id,
  status: task.status,
  upstream_status: task.upstream_status,
  reserved: formatMicros(BigInt(task.reserved)),
  billed_amount: task.billed_amount === null ? null : formatMicros(BigInt(task.billed_amount)),
  billed_seconds: task.billed_seconds,
  billed_tier: task.billed_tier,
  price_version: (task.price as { version?: number }).version ?? 1,
  request: task.request as unknown as Record<string, unknown>,
  error: task.error,
  result: task.result,
  attempts: task.attempts,
  queued_at: iso(task.queued_at ?? null),
  created_at: iso(task.created_at)!,
  updated_at: iso(task.updated_at)!,
  completed_at: iso(task.completed_at),
});
