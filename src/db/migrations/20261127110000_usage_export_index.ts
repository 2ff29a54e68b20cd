import type { Knex } from 'knex';

// The usage export (issue 28) pages through the entries that charged requests and tasks by time:
// per customer, and across all customers for the operators' export. Partial indexes: only the
// kinds the export reads.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index ledger_entries_charges_by_customer on ledger_entries (customer_id, created_at, id)
    where kind in ('settle', 'charge', 'true_up')`);
  await knex.raw(`create index ledger_entries_charges_by_time on ledger_entries (created_at, id) where kind in ('settle', 'charge', 'true_up')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ledger_entries_charges_by_time');
  await knex.raw('drop index if exists ledger_entries_charges_by_customer');
}
