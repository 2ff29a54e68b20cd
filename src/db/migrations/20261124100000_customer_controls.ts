import type { Knex } from 'knex';

// Customer controls (issue 17): suspension, key expiry, rotation and per-key limits. Every limit
// is enforced inside the reservation transaction, under a lock on the key's row, from the rows
// below, so any number of replicas on one database agree.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.text('status').notNullable().defaultTo('active');
    t.index(['created_at', 'id']); // the operators' list, newest first
  });
  await knex.raw(`alter table customers add constraint customers_status check (status in ('active', 'suspended'))`);

  await knex.schema.alterTable('api_keys', (t) => {
    t.timestamp('expires_at', { useTz: true });
    // Limits; NULL means none. Spend is micro-units per period (UTC calendar day or month, or ever).
    t.integer('requests_per_minute');
    t.integer('max_concurrent');
    t.bigInteger('spend_limit');
    t.text('spend_period');
    // After a rotation with a grace period the old secret's hash stays valid until then.
    t.text('previous_key_hash');
    t.timestamp('previous_valid_until', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table api_keys add constraint api_keys_limits check (
    (requests_per_minute is null or requests_per_minute > 0) and (max_concurrent is null or max_concurrent > 0)
    and (spend_limit is null or spend_limit >= 0) and ((spend_limit is null) = (spend_period is null))
    and (spend_period is null or spend_period in ('day', 'month', 'total')))`);
  await knex.raw('create unique index api_keys_previous_hash on api_keys (previous_key_hash) where previous_key_hash is not null');

  // The key a reservation was made for (from its purpose): concurrency counts its pending rows,
  // the rate its rows of the last minute, the spend limit its pending amounts.
  await knex.schema.alterTable('reservations', (t) => t.text('key_id'));
  await knex.raw('create index reservations_key_status on reservations (key_id, status) where key_id is not null');
  await knex.raw('create index reservations_key_created on reservations (key_id, created_at) where key_id is not null');

  // Settle and charge entries name the key that spent (audit, and the proof of the rollup below).
  await knex.schema.alterTable('ledger_entries', (t) => t.text('key_id'));

  // Posted spend per key and UTC day, kept by the same statements that post settle and charge
  // entries: a spend limit reads at most a few hundred rows however busy the key is
  // (scripts/explain-key-spend.ts measures the alternative). Reconciliation proves it equals the
  // journal.
  await knex.schema.createTable('key_spend_daily', (t) => {
    t.text('key_id').notNullable();
    t.date('day').notNullable();
    t.bigInteger('amount').notNullable().defaultTo(0);
    t.primary(['key_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('key_spend_daily');
  await knex.schema.alterTable('ledger_entries', (t) => t.dropColumn('key_id'));
  await knex.raw('drop index reservations_key_created');
  await knex.raw('drop index reservations_key_status');
  await knex.schema.alterTable('reservations', (t) => t.dropColumn('key_id'));
  await knex.raw('drop index api_keys_previous_hash');
  await knex.raw('alter table api_keys drop constraint api_keys_limits');
  await knex.schema.alterTable('api_keys', (t) => {
    for (const column of [
      'expires_at',
      'requests_per_minute',
      'max_concurrent',
      'spend_limit',
      'spend_period',
      'previous_key_hash',
      'previous_valid_until',
      'updated_at',
    ])
      t.dropColumn(column);
  });
  await knex.raw('alter table customers drop constraint customers_status');
  await knex.schema.alterTable('customers', (t) => {
    t.dropIndex(['created_at', 'id']);
    t.dropColumn('status');
  });
}
