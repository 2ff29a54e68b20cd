// The operator's margin by customer and model over a period, read from the journal: every entry
// that charged a request or a task (settle, charge, true_up) posted in [from, to) (`posted_at`, as
// exports read it: a period is final below the watermark, src/db/watermark.ts) brings its
// revenue (what it charged: posted plus the debt it recorded) and the upstream cost recorded beside
// it (`purpose.upstream_cost`, src/pricing/upstream-cost.ts). Margin is revenue less cost over the
// entries whose cost is known; revenue whose route had no cost is reported apart, never costed at
// zero. So the totals are the journal's sum of (charge - cost), to the micro-unit.
import type { Knex } from 'knex';

export interface MarginRow {
  customerId: string;
  model: string;
  /** Requests and tasks charged (a late true-up counts with its request). */
  requests: number;
  revenue: bigint;
  /** Of the revenue, what entries without a known cost charged. */
  revenueWithoutCost: bigint;
  /** Null when no entry of the row recorded a cost. */
  upstreamCost: bigint | null;
  /** revenue - revenueWithoutCost - upstreamCost; null with upstreamCost. */
  margin: bigint | null;
}

export interface MarginRange {
  customerId?: string;
  from: Date;
  to: Date;
}

const COST = `e.purpose -> 'upstream_cost' ->> 'amount'`;

export async function marginReport(db: Knex, range: MarginRange): Promise<MarginRow[]> {
  const customer = range.customerId ? 'and e.customer_id = ?' : '';
  const { rows } = await db.raw<{
    rows: Array<{ customer_id: string; model: string; requests: string; revenue: string; without_cost: string; upstream_cost: string | null }>;
  }>(
    `with charging as (
       select e.customer_id, coalesce(e.purpose ->> 'model', v.model_id, l.model, '(unknown)') as model, r.ref,
              e.amount + e.debt_delta as revenue,
              case when ${COST} ~ '^-{0,1}[0-9]{1,18}$' then (${COST})::bigint end as upstream_cost
         from ledger_entries e
         cross join lateral (select substr(e.reference, strpos(e.reference, ':') + 1) as ref) r
         left join video_tasks v on v.id = r.ref
         left join request_logs l on l.request_id = r.ref and e.purpose ->> 'model' is null
        where e.kind in ('settle', 'charge', 'true_up') and e.posted_at >= ? and e.posted_at < ? ${customer})
     select customer_id, model, count(distinct ref)::text as requests, sum(revenue)::text as revenue,
            sum(case when upstream_cost is null then revenue else 0 end)::text as without_cost, sum(upstream_cost)::text as upstream_cost
       from charging group by customer_id, model order by customer_id, model`,
    [range.from, range.to, ...(range.customerId ? [range.customerId] : [])],
  );
  return rows.map((row) => {
    const revenue = BigInt(row.revenue);
    const revenueWithoutCost = BigInt(row.without_cost);
    const upstreamCost = row.upstream_cost === null ? null : BigInt(row.upstream_cost);
    return {
      customerId: row.customer_id,
      model: row.model,
      requests: Number(row.requests),
      revenue,
      revenueWithoutCost,
      upstreamCost,
      margin: upstreamCost === null ? null : revenue - revenueWithoutCost - upstreamCost,
    };
  });
}

/** The rows added up, by the same rule. */
export function marginTotals(rows: readonly MarginRow[]): Omit<MarginRow, 'customerId' | 'model'> {
  const sum = (pick: (row: MarginRow) => bigint) => rows.reduce((total, row) => total + pick(row), 0n);
  const costed = rows.filter((row) => row.upstreamCost !== null);
  const upstreamCost = costed.length === 0 ? null : sum((row) => row.upstreamCost ?? 0n);
  const revenue = sum((row) => row.revenue);
  const revenueWithoutCost = sum((row) => row.revenueWithoutCost);
  return {
    requests: rows.reduce((n, row) => n + row.requests, 0),
    revenue,
    revenueWithoutCost,
    upstreamCost,
    margin: upstreamCost === null ? null : revenue - revenueWithoutCost - upstreamCost,
  };
}
