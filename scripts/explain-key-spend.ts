// How should a spend limit read a key's posted spend? Measured on PostgreSQL, in a scratch database
// `<name>_explain` beside DATABASE_URL (dropped first and at the end):
//   A. sum the key's settle/charge journal rows, through an index (key_id, created_at) INCLUDE (amount);
//   B. sum the key's rows of the daily rollup key_spend_daily (what the gateway does).
// Reads: EXPLAIN (ANALYZE, BUFFERS) of the sum for a day, a month and all time, for a busy key.
// Writes: the cost each design adds to posting one entry (one statement per entry, as settles are),
// with synchronous_commit off so that the disk flush every commit waits for does not drown it.
//   node --import tsx scripts/explain-key-spend.ts [entries=2000000]
import knexPkg, { type Knex } from 'knex';
import { openDatabase } from '../src/db/knex.ts';

const ENTRIES = Number(process.argv[2] ?? 2_000_000);
const DAYS = 90;
const WRITES = 5_000;

async function scratch(url: string): Promise<{ db: Knex; drop(): Promise<void> }> {
  const base = new URL(url);
  const name = `${base.pathname.slice(1) || 'gateway'}_explain`;
  const admin = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`drop database if exists ${name} with (force)`);
  await admin.raw(`create database ${name}`);
  base.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: base.toString(), poolMax: 1 });
  return {
    db,
    async drop() {
      await db.destroy();
      await admin.raw(`drop database if exists ${name} with (force)`).finally(() => admin.destroy());
    },
  };
}

async function explain(db: Knex, label: string, sql: string, bindings: unknown[]): Promise<void> {
  await db.raw(sql, bindings as never); // warm the cache: the steady state is what matters
  const { rows } = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain (analyze, buffers) ${sql}`, bindings as never);
  const plan = rows.map((r) => r['QUERY PLAN']);
  const nodes = plan
    .filter((l) => /Scan|Aggregate/.test(l))
    .map((l) => l.trim().replace(/\s+\(cost=[^)]*\)/, ''))
    .slice(0, 3);
  console.log(`  ${label.padEnd(34)} ${plan.find((l) => l.startsWith('Execution Time'))}`);
  for (const node of nodes) console.log(`      ${node}`);
}

async function timeWrites(db: Knex, label: string, statement: (i: number) => [string, unknown[]]): Promise<void> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < WRITES; i++) await db.raw(...(statement(i) as [string, never]));
  const us = Number(process.hrtime.bigint() - started) / 1000 / WRITES;
  console.log(`  ${label.padEnd(58)} ${us.toFixed(0)} us per entry`);
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to a PostgreSQL server');
  const { db, drop } = await scratch(url);
  try {
    await db('customers').insert([
      { id: 'cus_busy', name: 'busy' },
      { id: 'cus_other', name: 'other' },
    ]);
    console.log(`loading ${ENTRIES} settle entries for key_busy over ${DAYS} days, and as many for 1,000 other keys...`);
    for (const [customer, key, n] of [
      ['cus_busy', `'key_busy'`, ENTRIES],
      ['cus_other', `'key_' || (g % 1000)`, ENTRIES],
    ] as const) {
      await db.raw(`insert into ledger_entries (customer_id, kind, reference, amount, debits_delta, purpose, key_id, created_at)
        select '${customer}', 'settle', '${customer}:' || g, 1000 + g % 997, 1000 + g % 997, '{}'::jsonb, ${key},
               now() - (g::float / ${n} * ${DAYS}) * interval '1 day'
        from generate_series(1, ${n}) g`);
    }
    await db.raw(`insert into key_spend_daily (key_id, day, amount)
      select key_id, (created_at at time zone 'UTC')::date, sum(amount) from ledger_entries group by 1, 2`);
    await db.raw('create index ledger_entries_key_created on ledger_entries (key_id, created_at) include (amount) where key_id is not null');
    await db.raw('vacuum analyze ledger_entries');
    await db.raw('vacuum analyze key_spend_daily');

    const day = `(now() at time zone 'UTC')::date`;
    const month = `date_trunc('month', now() at time zone 'UTC')::date`;
    console.log('\nreads: posted spend of key_busy');
    for (const [period, since] of [
      ['day', day],
      ['month', month],
      ['total', `'-infinity'::date`],
    ] as const) {
      await explain(
        db,
        `A journal index, ${period}`,
        `select coalesce(sum(amount), 0) from ledger_entries where key_id = ? and created_at >= (${since})::timestamp at time zone 'UTC'`,
        ['key_busy'],
      );
      await explain(db, `B daily rollup, ${period}`, `select coalesce(sum(amount), 0) from key_spend_daily where key_id = ? and day >= ${since}`, ['key_busy']);
    }

    console.log(`\nwrites: ${WRITES} entries of one key, one statement each (synchronous_commit off)`);
    await db.raw('set synchronous_commit to off');
    const entry = (i: number, tag: string): [string, unknown[]] => [
      `insert into ledger_entries (customer_id, kind, reference, amount, debits_delta, purpose, key_id) values ('cus_busy', 'settle', ?, 1000, 1000, '{}', 'key_w') returning id`,
      [`${tag}:${i}`],
    ];
    await timeWrites(db, 'A entry, with the journal index', (i) => entry(i, 'a'));
    await db.raw('drop index ledger_entries_key_created');
    await timeWrites(db, 'entry alone (neither design)', (i) => entry(i, 'n'));
    await timeWrites(db, 'B entry and its rollup upsert, one statement', (i) => [
      `with entry as (insert into ledger_entries (customer_id, kind, reference, amount, debits_delta, purpose, key_id)
         values ('cus_busy', 'settle', ?, 1000, 1000, '{}', 'key_w') returning key_id, amount)
       insert into key_spend_daily (key_id, day, amount) select key_id, (now() at time zone 'UTC')::date, amount from entry
       on conflict (key_id, day) do update set amount = key_spend_daily.amount + excluded.amount`,
      [`b:${i}`],
    ]);
  } finally {
    await drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
