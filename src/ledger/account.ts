// A customer's own view of its money: what it can spend and what its requests in flight hold.
// Credit grants are this gateway's way of holding balance ahead of requests (grants.ts); they are
// given back whenever another request needs the balance, so to the customer they are available.
// Requests drawing from a grant are counted once charged (a flush, milliseconds later).
import type { Knex } from 'knex';
import { periodStart } from './free-quota.ts';
import type { FreeQuota } from '../catalogue/types.ts';

export interface AccountBalance {
  credits: bigint;
  debits: bigint;
  /** Held by requests and video tasks in flight that reserved on their own. */
  reserved: bigint;
  available: bigint;
}

export async function accountBalance(db: Knex, customerId: string): Promise<AccountBalance> {
  const { rows } = await db.raw<{ rows: Array<{ credits: string; debits: string; reserved: string }> }>(
    `select coalesce((select credits_posted from wallets where customer_id = ?), 0)::text as credits,
            coalesce((select debits_posted from wallets where customer_id = ?), 0)::text as debits,
            coalesce((select sum(amount) from reservations where customer_id = ? and status = 'pending' and kind <> 'grant'), 0)::text as reserved`,
    [customerId, customerId, customerId],
  );
  const credits = BigInt(rows[0]!.credits);
  const debits = BigInt(rows[0]!.debits);
  const reserved = BigInt(rows[0]!.reserved);
  return { credits, debits, reserved, available: credits - debits - reserved };
}

export interface FreeQuotaLeft {
  modelId: string;
  periodStart: string;
  used: bigint;
  held: bigint;
}

/** Units used and held of each model's allowance in its current period (UTC). */
export async function freeQuotaUsage(db: Knex, customerId: string, models: Array<{ modelId: string; quota: FreeQuota }>, now: Date): Promise<FreeQuotaLeft[]> {
  if (models.length === 0) return [];
  const wanted = models.map((m) => ({ modelId: m.modelId, periodStart: periodStart(m.quota.period, now) }));
  const rows: Array<{ model_id: string; period_start: string; used: bigint; held: bigint }> = await db('free_quota_usage')
    .where({ customer_id: customerId })
    .whereIn(
      ['model_id', 'period_start'],
      wanted.map((w) => [w.modelId, w.periodStart]),
    )
    .select('model_id', 'period_start', 'used', 'held');
  return wanted.map((w) => {
    const row = rows.find((r) => r.model_id === w.modelId && String(r.period_start) === w.periodStart);
    return { ...w, used: BigInt(row?.used ?? 0n), held: BigInt(row?.held ?? 0n) };
  });
}
