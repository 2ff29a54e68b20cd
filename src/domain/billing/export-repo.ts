// The export's lines, one page at a time: every journal entry that charged a request or a video
// task (settle, charge, true_up) posted in [from, to), oldest first, with what the request's log
// row or the task's row says about it. An entry is dated by posted_at (the clock when it was
// written, not its transaction's start): [from, to) below the watermark is final. Keyset paging
// on (posted_at, id): each page is one short query, so an export of any size streams with a page
// in memory and no transaction held open.
import type { Knex } from 'knex';

/** The journal kinds that charge a request or a task (as the key spend rollup counts them). */
export const CHARGING_KINDS = ['settle', 'charge', 'true_up'] as const;

export interface ExportLine {
  id: bigint;
  /** The entry's time as PostgreSQL text (microseconds kept): the next page's cursor. */
  cursor_at: string;
  posted_at: string;
  customer_id: string;
  key_id: string | null;
  kind: (typeof CHARGING_KINDS)[number];
  ref: string;
  is_task: boolean;
  endpoint: string | null;
  model: string | null;
  price_version: number | null;
  /** The rule that chose the price (src/pricing/plans.ts): null for the catalogue's list price. */
  price_rule: string | null;
  /** The price plan whose rule it was. */
  plan: string | null;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cache_read_tokens: bigint | null;
  cache_write_tokens: bigint | null;
  /** The threshold of the long-context tier the request was priced at; null: the base prices. */
  tier_above_input_tokens: number | null;
  video_seconds: number | null;
  video_tier: string | null;
  estimated: boolean | null;
  free_units: bigint;
  free_amount: bigint;
  charged: bigint;
  debt: bigint;
  /** The entry's upstream cost snapshot (`purpose.upstream_cost`), for operators' exports only. */
  upstream_cost: unknown;
}

export interface ExportRange {
  customerId?: string;
  from: Date;
  /** At most `watermark`. */
  to: Date;
  /** No entry dated before it could still commit when the export began. */
  watermark: Date;
}

export async function exportPage(db: Knex, range: ExportRange, after: { at: string; id: bigint } | undefined, limit: number): Promise<ExportLine[]> {
  // Conditions are left out rather than made optional in SQL, so the planner sees the index's shape.
  const customer = range.customerId ? 'and e.customer_id = ?' : '';
  const cursor = after ? 'and (e.posted_at, e.id) > (?::timestamptz, ?::bigint)' : '';
  // The page's entries are picked first, by walking the index in (posted_at, id) order, and only
  // those 500 are joined. In one query the planner, misjudging how many entries lie past the
  // cursor, read every one of them in the period, joined them all and sorted: each page cost the
  // rest of the period, 94 ms a page instead of 8 with a million rows seeded (npm run bench -- --scale).
  const { rows } = await db.raw<{ rows: ExportLine[] }>(
    `with page as materialized (
       select e.id from ledger_entries e
        where e.kind in ('settle', 'charge', 'true_up') and e.posted_at >= ? and e.posted_at < ? ${customer} ${cursor}
        order by e.posted_at, e.id
        limit ?)
     select e.id, e.posted_at::text as cursor_at,
            to_char(e.posted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as posted_at,
            e.customer_id, coalesce(e.key_id, l.key_id, v.key_id) as key_id, e.kind, r.ref, v.id is not null as is_task,
            coalesce(l.endpoint, case when v.id is not null then 'videos_create' end) as endpoint,
            coalesce(l.model, v.model_id, e.purpose ->> 'model', pv.model_id) as model, pv.version as price_version,
            pv.pricing ->> 'rule' as price_rule, pv.pricing -> 'plan' ->> 'name' as plan,
            l.input_tokens, l.output_tokens, l.cache_read_tokens, l.cache_write_tokens,
            (l.usage_detail -> 'price_tier' ->> 'above_input_tokens')::integer as tier_above_input_tokens,
            case when e.kind = 'settle' then v.billed_seconds end as video_seconds,
            case when e.kind = 'settle' then v.billed_tier end as video_tier,
            coalesce(l.usage_estimated, (e.purpose ->> 'estimated') = 'true') as estimated,
            e.free_units, e.free_amount, e.debits_delta as charged, e.debt_delta as debt, e.purpose -> 'upstream_cost' as upstream_cost
       from page join ledger_entries e on e.id = page.id
       cross join lateral (select substr(e.reference, strpos(e.reference, ':') + 1) as ref) r
       left join request_logs l on l.request_id = r.ref and l.created_at = request_log_created_at(r.ref)
       left join video_tasks v on v.id = r.ref
       left join price_versions pv on pv.id = coalesce(e.price_version_id, l.price_version_id, v.price_version_id)
      order by e.posted_at, e.id`,
    [range.from, range.to, ...(range.customerId ? [range.customerId] : []), ...(after ? [after.at, after.id.toString()] : []), limit],
  );
  return rows;
}
