import { Failure } from '../../domain/failure.ts';
import { formatMicros } from '../../shared/money.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { usageRowToWire } from '../serialize/account.ts';

export async function usage_get(ctx: PublicContext<'usage_get'>): Promise<Ok<PublicOperations, 'usage_get'> | Failure> {
  const q = ctx.query;
  const { account } = ctx.services;
  const usage = await account.usage(ctx.caller, { ...(q.start_date ? { start: q.start_date } : {}), ...(q.end_date ? { end: q.end_date } : {}) });
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
