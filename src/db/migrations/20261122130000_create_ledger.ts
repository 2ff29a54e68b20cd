import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per customer. Available = credits_posted - debits_posted - debits_pending, and the
  // CHECK is the last line of defence behind the conditional updates in src/ledger.
  await knex.schema.createTable('wallets', (t) => {
    t.text('customer_id').primary().references('customers.id');
    t.bigInteger('credits_posted').notNullable().defaultTo(0);
    t.bigInteger('debits_posted').notNullable().defaultTo(0);
    t.bigInteger('debits_pending').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table wallets add constraint wallets_columns_non_negative
    check (credits_posted >= 0 and debits_posted >= 0 and debits_pending >= 0)`);
  await knex.raw(`alter table wallets add constraint wallets_available_non_negative
    check (credits_posted - debits_posted - debits_pending >= 0)`);

  // The state of each reservation: pending until settled or released, exactly once.
  await knex.schema.createTable('reservations', (t) => {
    t.text('ref').primary();
    t.text('customer_id').notNullable().references('customers.id');
    t.bigInteger('amount').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    // Free-quota units held for this reservation, and which allowance they came from.
    t.text('free_model_id');
    t.text('free_unit');
    t.date('free_period_start');
    t.bigInteger('free_units_held').notNullable().defaultTo(0);
    t.bigInteger('price_version_id');
    t.jsonb('purpose').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.index(['customer_id', 'status']);
  });
  await knex.raw(`alter table reservations add constraint reservations_status check (status in ('pending', 'settled', 'released'))`);
  await knex.raw('alter table reservations add constraint reservations_amount_non_negative check (amount >= 0 and free_units_held >= 0)');

  // Append-only journal. Each row says what it did to each wallet column, so reconciliation is a
  // sum; `reference` makes every operation take effect once.
  await knex.schema.createTable('ledger_entries', (t) => {
    t.bigIncrements('id').primary();
    t.text('customer_id').notNullable().references('customers.id');
    t.text('kind').notNullable();
    t.text('reference').notNullable().unique();
    t.text('reservation_ref');
    t.bigInteger('amount').notNullable();
    t.bigInteger('credits_delta').notNullable().defaultTo(0);
    t.bigInteger('debits_delta').notNullable().defaultTo(0);
    t.bigInteger('pending_delta').notNullable().defaultTo(0);
    t.bigInteger('free_units').notNullable().defaultTo(0);
    t.bigInteger('free_amount').notNullable().defaultTo(0);
    t.bigInteger('price_version_id');
    t.jsonb('purpose').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['customer_id', 'id']);
  });
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_kind
    check (kind in ('top_up', 'reserve', 'settle', 'release', 'adjustment'))`);

  // Free allowance per customer, model and calendar period (UTC): units used and units held by
  // pending reservations. used + held never exceeds the limit in force when they were taken.
  await knex.schema.createTable('free_quota_usage', (t) => {
    t.text('customer_id').notNullable().references('customers.id');
    t.text('model_id').notNullable();
    t.date('period_start').notNullable();
    t.text('unit').notNullable();
    t.bigInteger('used').notNullable().defaultTo(0);
    t.bigInteger('held').notNullable().defaultTo(0);
    t.primary(['customer_id', 'model_id', 'period_start']);
  });
  await knex.raw('alter table free_quota_usage add constraint free_quota_usage_non_negative check (used >= 0 and held >= 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('free_quota_usage');
  await knex.schema.dropTable('ledger_entries');
  await knex.schema.dropTable('reservations');
  await knex.schema.dropTable('wallets');
}
