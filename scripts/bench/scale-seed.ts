// The history the scale phase (scripts/bench/phases/scale.ts) puts under a gateway: request-log
// rows and journal entries as the gateway writes them, generated inside PostgreSQL
// (generate_series, INSERT ... SELECT) into the production schema as the migrations made it, every
// index, constraint and foreign key in place. Every request is one log row and two journal entries
// (its reservation's `reserve` and `settle`, as a request on a per-request reservation posts them),
// dated evenly over the last 90 days up to an hour ago (in the partitions of their months), ids in
// time order as the gateway's are.
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
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SPAN = "interval '90 days'";
/** In every seeded request id, after the 8 digits of its time (unique with g's 11 digits). */
const SEEDED_ID_MARK = 'scale';
/**
 * Request g's id as the gateway mints them (src/shared/ids.ts): `req_`, the arrival time `m.ms` in 8
 * base62 digits, then 16 more: the database dates it (request_log_created_at) as its row.
 */
const REQUEST_ID = `'req_' || ${Array.from({ length: 8 }, (_, i) => `substr('${BASE62}', ((m.ms / ${62n ** BigInt(7 - i)}) % 62)::int + 1, 1)`).join(' || ')} || '${SEEDED_ID_MARK}' || lpad(g::text, 11, '0')`;
/** Request g's customer, key and instant (g from 1 to n; t ascending with g). */
const customer = (bench: string) => `case when g % 10 = 0 then ${bench} else 'cus_scale_' || lpad((g % ${SEEDED_CUSTOMERS})::text, 4, '0') end`;

export async function seedHistory(db: Knex, spec: SeedSpec, log: (m: string) => void): Promise<{ seconds: number; logRows: number; journalEntries: number }> {
  const started = Date.now();
  const n = spec.requests;
  const bench = db.raw('?', [spec.customerId]).toQuery();
  const key = db.raw('?', [spec.keyId]).toQuery();
  const who = customer(bench);
  const keyOf = `case when g % 10 = 0 then ${key} else 'key_scale_' || lpad((g % ${SEEDED_CUSTOMERS})::text, 4, '0') end`;
  // To the millisecond: the request id carries it (below), and a receipt finds its row by it.
  const at = `date_trunc('milliseconds', now() - interval '1 hour' - ${SPAN} * ((${n} - g)::float8 / ${n}))`;
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
    // The months' partitions, as the upkeep of a gateway running over those months would have made
    // them ahead (src/logs/retention.ts): without, the rows of months before the migration's would
    // all land in the default partition.
    await trx.raw(`select request_logs_ensure_partition(d) from generate_series(now() - interval '1 hour' - ${SPAN}, now(), interval '1 day') d`);
    log(`scale: ${SEEDED_CUSTOMERS} customers; ${n} request-log rows`);
    await trx.raw(
      `insert into request_logs (request_id, customer_id, key_id, endpoint, model, requested_model, provider, status, latency_ms, ttfb_ms,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, stream, upstream_request_id, created_at, logged_at,
         price_version_id, hold_amount, hold_source, free_units_held, free_units, free_amount, debt, upstream_usage)
       select ${REQUEST_ID}, ${who}, ${keyOf}, 'messages_create', 'bench/claude', 'bench/claude', 'bench-anthropic', 200, 40 + g % 30, 20 + g % 10,
              10 + g % 500, 8 + g % 300, 0, 0, 100 + g % 400, g % 3 = 0, 'msg_scale_' || g, t, t,
              ${price ?? 'null'}, 15454, 'reservation', 0, 0, 0, 0,
              jsonb_build_object('input_tokens', 10 + g % 500, 'output_tokens', 8 + g % 300)
         from generate_series(1, ${n}) g, lateral (select ${at} as t) d, lateral (select (extract(epoch from d.t) * 1000)::bigint as ms) m`,
    );
    log(`scale: ${2 * n} journal entries`);
    // From the rows just written (their ids, customers, keys, costs and times), in their order.
    await trx.raw(
      `insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, debits_delta, pending_delta, price_version_id, purpose, created_at, posted_at, key_id)
       select l.customer_id, e.kind, e.kind || ':' || l.request_id, l.request_id, e.amount, e.debits, e.pending, ${price ?? 'null'},
              jsonb_build_object('key_id', l.key_id, 'model', 'bench/claude', 'reserved', '15454', 'estimated', false), e.t, e.t, l.key_id
         from request_logs l,
              lateral (values ('reserve', 15454, 0, 15454, l.created_at), ('settle', l.cost, l.cost, -15454, l.created_at + interval '40 ms')) e(kind, amount, debits, pending, t)
        where l.upstream_request_id like 'msg_scale_%'`,
    );
    // The wallets agree with the journal: every seeded charge posted, nothing pending.
    await trx.raw(`update wallets w set debits_posted = w.debits_posted + s.debits
      from (select customer_id, sum(debits_delta) as debits from ledger_entries where kind = 'settle' and reservation_ref like '%${SEEDED_ID_MARK}%' group by 1) s
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
