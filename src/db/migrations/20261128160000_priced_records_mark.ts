import type { Knex } from 'knex';

// Reconciliation prices every charge again from what its journal entries recorded (`purpose.priced`,
// docs/money.md). Entries written before they recorded it cannot be priced again: the id of the
// last of them is kept here, so reconciliation counts those apart (`legacy`) instead of reporting
// each as a difference after an upgrade. A small table of named marks, one row each.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create table ledger_marks (name text primary key, entry_id bigint not null, created_at timestamptz not null default now())');
  await knex.raw(`insert into ledger_marks (name, entry_id) select 'priced_records_from', coalesce(max(id), 0) from ledger_entries`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table ledger_marks');
}
