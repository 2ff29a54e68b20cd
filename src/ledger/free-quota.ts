import type { Knex } from 'knex';
import type { FreeQuota } from '../catalogue/types.ts';

/** The calendar period (UTC) an instant falls in: its first day, as YYYY-MM-DD. */
export function periodStart(period: FreeQuota['period'], now: Date): string {
  const day = now.toISOString().slice(0, 10);
  return period === 'day' ? day : `${day.slice(0, 8)}01`;
}

export interface FreeHold {
  modelId: string;
  unit: FreeQuota['unit'];
  periodStart: string;
  units: bigint;
}

/**
 * Holds up to `wanted` free units for a reservation, inside the caller's transaction. The row lock
 * serialises concurrent holds, so used + held never passes the allowance.
 */
export async function holdFreeUnits(
  trx: Knex.Transaction,
  input: { customerId: string; modelId: string; quota: FreeQuota; wanted: bigint; now: Date },
): Promise<FreeHold> {
  const key = { customer_id: input.customerId, model_id: input.modelId, period_start: periodStart(input.quota.period, input.now) };
  const hold: FreeHold = { modelId: input.modelId, unit: input.quota.unit, periodStart: key.period_start, units: 0n };
  if (input.wanted <= 0n) return hold;
  await trx('free_quota_usage')
    .insert({ ...key, unit: input.quota.unit })
    .onConflict(['customer_id', 'model_id', 'period_start'])
    .ignore();
  const row = await trx('free_quota_usage').where(key).forUpdate().first<{ used: bigint; held: bigint }>('used', 'held');
  const left = BigInt(input.quota.amount) - row!.used - row!.held;
  hold.units = left <= 0n ? 0n : left < input.wanted ? left : input.wanted;
  if (hold.units > 0n)
    await trx('free_quota_usage')
      .where(key)
      .increment('held', hold.units as unknown as number);
  return hold;
}

/** Turns a hold into usage: `used` of the held units are spent, the rest go back. */
export async function resolveFreeHold(
  trx: Knex.Transaction,
  input: { customerId: string; modelId: string; periodStart: string; held: bigint; used: bigint },
): Promise<void> {
  if (input.held === 0n) return;
  await trx('free_quota_usage')
    .where({ customer_id: input.customerId, model_id: input.modelId, period_start: input.periodStart })
    .update({
      held: trx.raw('held - ?', [input.held.toString()]),
      used: trx.raw('used + ?', [input.used.toString()]),
    });
}

/** When the calendar period (UTC) an instant falls in ends: the next period's first instant. */
export function periodEnd(period: FreeQuota['period'], now: Date): Date {
  const end = new Date(`${periodStart(period, now)}T00:00:00Z`);
  if (period === 'day') end.setUTCDate(end.getUTCDate() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}
