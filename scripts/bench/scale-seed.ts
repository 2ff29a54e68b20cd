// The history the scale phase (scripts/bench/phases/scale.ts) puts under a gateway: request-log
// rows and journal entries as the gateway writes them, generated inside PostgreSQL
// (generate_series, INSERT ... SELECT) into the production schema as the migrations made it, every
// index, constraint and foreign key in place. Every request is one log row and two journal entries
// (its reservation's `reserve` and `settle`, as a request on a per-request reservation posts them),
// dated evenly over the last 90 days up to an hour ago, ids in time order as the gateway's are.
// Every tenth request is the bench customer's (the one the load phases drive: deep pages, receipts,
// usage and the export read its history); the others spread over 9,999 more customers, each with a
// top-up and a wallet that agrees with its journal.
import type { Knex } from 'knex';

export interface SeedSpec {
  /** Request-log rows (journal entries: twice as many). */
  requests: number;
  /** The bench customer's id and one of its keys. */
  customerId: string;
  keyId: string;
}

export const SEEDED_CUSTOMERS = 9_999;
const SPAN = "interval '90 days'";
/** Request g's customer, key and instant (g from 1 to n; t ascending with g). */
const customer = (bench: string) => `case when g % 10 = 0 then ${bench} else 'cus_scale_' || lpad((g % ${SEEDED_CUSTOMERS})::text, 4, '0') end`;

export async function seedHistory(db: Knex, spec: SeedSpec, log: (m: string) => void): Promise<{ seconds: number; logRows: number; journalEntries: number }> {
  const started = Date.now();
  const n = spec.requests;
  const bench = db.raw('?', [spec.customerId]).toQuery();
  const key = db.raw('?', [spec.keyId]).toQuery();
  const who = customer(bench);
  const keyOf = `case when g % 10 = 0 then ${key} else 'key_scale_' || lpad((g % ${SEEDED_CUSTOMERS})::text, 4, '0') end`;
  const at = `(now() - interval '1 hour' - ${SPAN} * ((${n} - g)::float8 / ${n}))`;
  await db.transaction(async (trx) => {
    // One session's commit waits for no WAL flush; the tables, their indexes and constraints are untouched.
    await trx.raw('set local synchronous_commit = off');
    const price = (await trx.raw<{ rows: Array<{ id: string }> }>(`select id from price_versions where model_id = 'bench/claude' order by version desc limit 1`)).rows[0]?.id ?? null;
    await trx.raw(`insert into customers (id, name, created_at)
      select 'cus_scale_' || lpad(c::text, 4, '0'), 'Scale customer ' || c, now() - interval '120 days' from generate_series(0, ${SEEDED_CUSTOMERS - 1}) c`);
    await trx.raw(`insert into wallets (customer_id, credits_posted) select id, 1000000000000 from customers where id like 'cus_scale_%'`);
    await trx.raw(`insert into ledger_entries (customer_id, kind, reference, amount, credits_delta, purpose, created_at, posted_at)
      select id, 'top_up', 'top_up:scale:' || id, 1000000000000, 1000000000000, '{"actor":"admin"}', now() - interval '120 days', now() - interval '120 days'
        from customers where id like 'cus_scale_%'`);
    log(`scale: ${SEEDED_CUSTOMERS} customers; ${n} request-log rows`);
    await trx.raw(
      `insert into request_logs (request_id, customer_id, key_id, endpoint, model, requested_model, provider, status, latency_ms, ttfb_ms,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, stream, upstream_request_id, created_at, logged_at,
         price_version_id, hold_amount, hold_source, free_units_held, free_units, free_amount, debt, upstream_usage)
       select 'req_scale' || g, ${who}, ${keyOf}, 'messages_create', 'bench/claude', 'bench/claude', 'bench-anthropic', 200, 40 + g % 30, 20 + g % 10,
              10 + g % 500, 8 + g % 300, 0, 0, 100 + g % 400, g % 3 = 0, 'msg_scale_' || g, t, t,
              ${price ?? 'null'}, 15454, 'reservation', 0, 0, 0, 0,
              jsonb_build_object('input_tokens', 10 + g % 500, 'output_tokens', 8 + g % 300)
         from generate_series(1, ${n}) g, lateral (select ${at} as t) d`,
    );
    log(`scale: ${2 * n} journal entries`);
    await trx.raw(
      `insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, debits_delta, pending_delta, price_version_id, purpose, created_at, posted_at, key_id)
       select ${who}, e.kind, e.kind || ':req_scale' || g, 'req_scale' || g, e.amount, e.debits, e.pending, ${price ?? 'null'},
              jsonb_build_object('key_id', ${keyOf}, 'model', 'bench/claude', 'reserved', '15454', 'estimated', false), e.t, e.t, ${keyOf}
         from generate_series(1, ${n}) g, lateral (select ${at} as t) d,
              lateral (values ('reserve', 15454, 0, 15454, d.t), ('settle', 100 + g % 400, 100 + g % 400, -15454, d.t + interval '40 ms')) e(kind, amount, debits, pending, t)`,
    );
    // The wallets agree with the journal: every seeded charge posted, nothing pending.
    await trx.raw(`update wallets w set debits_posted = w.debits_posted + s.debits
      from (select customer_id, sum(debits_delta) as debits from ledger_entries where reference like 'settle:req_scale%' group by 1) s
      where w.customer_id = s.customer_id`);
  });
  // As a database this old would be: vacuumed and analysed (autovacuum would otherwise start on it
  // during the measurements).
  log('scale: vacuum (analyze)');
  await db.raw('vacuum (analyze) request_logs, ledger_entries, customers, wallets');
  // The seed's pages written out now, not by a checkpoint during the hot path's rounds (needs
  // pg_checkpoint or a superuser; without, the rounds may share the disk with that checkpoint).
  await db.raw('checkpoint').catch((error: Error) => log(`scale: no checkpoint (${error.message})`));
  return { seconds: Math.round((Date.now() - started) / 100) / 10, logRows: n, journalEntries: 2 * n };
}
