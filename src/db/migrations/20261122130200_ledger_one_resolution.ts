import type { Knex } from 'knex';

// A reservation resolves at most once: the row lock and status guard in src/ledger enforce it, and
// this index makes the database refuse a second settle or release row even if code went wrong.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create unique index ledger_entries_one_resolution on ledger_entries (reservation_ref)
    where kind in ('settle', 'release')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index ledger_entries_one_resolution');
}
