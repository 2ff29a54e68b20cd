import type { Knex } from 'knex';

// Delivered usage is charged in full, exactly once, even when a sweeper ended a live process's hold
// (issue 22): the owner's late report posts the difference from the sweeper's floor as a `true_up`
// entry, and what the balance cannot cover is recorded as the customer's debt (never dropped). A
// later top-up repays debt first (`debt_repaid`). Reconciliation proves wallets.debt = sum(debt_delta).
// Request log rows written by a sweeper are marked, so the owner's own row replaces them; the
// client's request id (behind a trusted proxy) is kept beside the gateway's own. The demo customer
// `npm start` creates is marked, so a start without the sandbox can suspend it (issue 24).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wallets', (t) => {
    t.bigInteger('debt').notNullable().defaultTo(0);
  });
  await knex.raw('alter table wallets add constraint wallets_debt_non_negative check (debt >= 0)');
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.bigInteger('debt_delta').notNullable().defaultTo(0);
  });
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_kind');
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_kind
    check (kind in ('top_up', 'reserve', 'settle', 'release', 'adjustment', 'charge', 'unreserve', 'true_up', 'debt_repaid'))`);
  await knex.schema.alterTable('request_logs', (t) => {
    t.boolean('swept').notNullable().defaultTo(false);
    t.text('client_request_id');
  });
  await knex.schema.alterTable('customers', (t) => {
    t.boolean('demo').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => t.dropColumn('demo'));
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('client_request_id');
    t.dropColumn('swept');
  });
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_kind');
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_kind
    check (kind in ('top_up', 'reserve', 'settle', 'release', 'adjustment', 'charge', 'unreserve'))`);
  await knex.schema.alterTable('ledger_entries', (t) => t.dropColumn('debt_delta'));
  await knex.raw('alter table wallets drop constraint wallets_debt_non_negative');
  await knex.schema.alterTable('wallets', (t) => t.dropColumn('debt'));
}
