// A customer's usage (or every customer's, for operators) per UTC day and model, from the request logs (messages, chat: tokens and
// what each request was charged) and the video tasks (billed seconds and amount, on the day each
// was settled). Requests count when they succeeded or were charged.
import type { Knex } from 'knex';

export interface UsageRow {
  date: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  videoSeconds: number;
  spend: bigint;
}

/** [from, to): UTC instants; every customer's when `customerId` is undefined. */
export async function usageByDay(db: Knex, customerId: string | undefined, from: Date, to: Date): Promise<UsageRow[]> {
  const whose = customerId === undefined ? '' : 'customer_id = ? and';
  const who = customerId === undefined ? [] : [customerId];
  const { rows } = await db.raw<{
    rows: Array<{ day: string; model: string; requests: string; input_tokens: string; output_tokens: string; video_seconds: string; spend: string }>;
  }>(
    `with logs as (
       select (created_at at time zone 'UTC')::date as day, model, count(*) as requests,
              coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
              0 as video_seconds, coalesce(sum(cost), 0) as spend
         from request_logs
        where ${whose} created_at >= ? and created_at < ? and model is not null and (status < 400 or cost > 0)
        group by 1, 2),
     videos as (
       select (completed_at at time zone 'UTC')::date as day, model_id as model, 0 as requests, 0 as input_tokens, 0 as output_tokens,
              coalesce(sum(billed_seconds), 0) as video_seconds, coalesce(sum(billed_amount), 0) as spend
         from video_tasks
        where ${whose} billed_amount is not null and completed_at >= ? and completed_at < ?
        group by 1, 2)
     select day::text as day, model, sum(requests)::text as requests, sum(input_tokens)::text as input_tokens, sum(output_tokens)::text as output_tokens,
            sum(video_seconds)::text as video_seconds, sum(spend)::text as spend
       from (select * from logs union all select * from videos) usage
      group by 1, 2 order by 1, 2`,
    [...who, from, to, ...who, from, to],
  );
  return rows.map((r) => ({
    date: r.day,
    model: r.model,
    requests: Number(r.requests),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    videoSeconds: Number(r.video_seconds),
    spend: BigInt(r.spend),
  }));
}
