import type { Knex } from 'knex';

// Time-windowed reads that never miss a late-committing row (issue 33, 5; docs/money.md, "The
// export watermark"). A journal entry's created_at is its transaction's start (now()), and a
// request log row's is the request's arrival, so both can commit long after later-dated rows were
// read. Each row now also records when it was written: `posted_at` (journal) and `logged_at`
// (request log, renewed when an owner's row replaces a sweeper's), the clock at the insert,
// which runs after the transaction announced its start in pg_stat_activity. Windows on these
// columns, served only below the watermark (src/db/watermark.ts), are final. Rows written before
// this migration keep their old date in the new column.
export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of [
    ['ledger_entries', 'posted_at'],
    ['request_logs', 'logged_at'],
  ] as const) {
    await knex.raw(`alter table ${table} add column ${column} timestamptz`);
    await knex.raw(`update ${table} set ${column} = created_at`);
    await knex.raw(`alter table ${table} alter column ${column} set default clock_timestamp(), alter column ${column} set not null`);
  }
  // The export reads charges by posting time, per customer and across customers.
  await knex.raw('drop index if exists ledger_entries_charges_by_customer');
  await knex.raw('drop index if exists ledger_entries_charges_by_time');
  await knex.raw(`create index ledger_entries_charges_by_customer on ledger_entries (customer_id, posted_at, id)
    where kind in ('settle', 'charge', 'true_up')`);
  await knex.raw(`create index ledger_entries_charges_by_time on ledger_entries (posted_at, id) where kind in ('settle', 'charge', 'true_up')`);
  // Request log windows, per customer and across customers (the admin list).
  await knex.raw('create index request_logs_customer_logged on request_logs (customer_id, logged_at)');
  await knex.raw('create index request_logs_logged on request_logs (logged_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists request_logs_logged');
  await knex.raw('drop index if exists request_logs_customer_logged');
  await knex.raw('drop index if exists ledger_entries_charges_by_time');
  await knex.raw('drop index if exists ledger_entries_charges_by_customer');
  await knex.raw(`create index ledger_entries_charges_by_customer on ledger_entries (customer_id, created_at, id)
    where kind in ('settle', 'charge', 'true_up')`);
  await knex.raw(`create index ledger_entries_charges_by_time on ledger_entries (created_at, id) where kind in ('settle', 'charge', 'true_up')`);
  await knex.raw('alter table request_logs drop column logged_at');
  await knex.raw('alter table ledger_entries drop column posted_at');
}
