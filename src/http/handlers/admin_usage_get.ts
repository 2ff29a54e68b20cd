import { Failure } from '../../domain/failure.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { usageRowToWire } from '../serialize/account.ts';

export async function admin_usage_get(ctx: AdminContext<'admin_usage_get'>): Promise<Ok<AdminOperations, 'admin_usage_get'> | Failure> {
  const q = ctx.query;
  const { account } = ctx.services;
  const usage = await account.usageOf(q.customer_id, { ...(q.start_date ? { start: q.start_date } : {}), ...(q.end_date ? { end: q.end_date } : {}) });
  if (usage instanceof Failure) return usage;
  const total = usage.rows.reduce((sum, row) => sum + row.spend, 0n);
  return {
    status: 200,
    body: {
      object: 'usage',
      currency: account.currency(),
      start_date: usage.start,
      end_date: usage.end,
      total_spend: formatMicros(total),
      data: usage.rows.map(usageRowToWire),
    },
  };
}
