import type { Knex } from 'knex';

// Redeem codes (issue 37, 4). Operators mint a batch of codes of one amount and expiry; only each
// code's SHA-256 is stored (the clear code is answered once, at minting). A code is redeemed by a
// conditional update (`status = 'active' and expires_at > now()`) in the same transaction as its
// credit, so any number of replicas redeem it once. The amount and expiry are copied onto each
// code so that update reads one row. `seq` orders the lists (minting order) and backs their
// cursors; ids are random.
//
// Redemption attempts are counted per key and per client address in fixed windows, in a table
// every replica shares: one upsert per attempt, refused past the limit, given back on success.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('redeem_batches', (t) => {
    t.text('id').primary(); // rb_<base62>
    t.bigIncrements('seq', { primaryKey: false });
    t.bigInteger('amount').notNullable();
    t.integer('count').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table redeem_batches add constraint redeem_batches_amount check (amount > 0 and count > 0)');
  await knex.raw('create unique index redeem_batches_seq on redeem_batches (seq)');

  await knex.schema.createTable('redeem_codes', (t) => {
    t.text('id').primary(); // rc_<base62>: the journal's reference, never the code
    t.bigIncrements('seq', { primaryKey: false });
    t.text('batch_id').notNullable().references('redeem_batches.id');
    t.text('code_hash').notNullable().unique();
    t.bigInteger('amount').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('redeemed_by').references('customers.id');
    t.text('redeemed_key_id');
    t.timestamp('redeemed_at', { useTz: true });
    t.timestamp('voided_at', { useTz: true });
    t.text('void_reason');
  });
  await knex.raw(`alter table redeem_codes add constraint redeem_codes_status check (
    (status = 'active' and redeemed_by is null and voided_at is null)
    or (status = 'redeemed' and redeemed_by is not null and redeemed_at is not null and voided_at is null)
    or (status = 'voided' and redeemed_by is null and voided_at is not null))`);
  await knex.raw('create unique index redeem_codes_seq on redeem_codes (seq)');
  await knex.raw('create index redeem_codes_batch on redeem_codes (batch_id, seq)');
  await knex.raw('create index redeem_codes_redeemed_by on redeem_codes (redeemed_by, seq) where redeemed_by is not null');

  await knex.schema.createTable('redeem_attempts', (t) => {
    t.text('scope').notNullable(); // key:<key id> or address:<client address>
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('failures').notNullable();
    t.primary(['scope', 'window_start']);
    t.index(['window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('redeem_attempts');
  await knex.schema.dropTable('redeem_codes');
  await knex.schema.dropTable('redeem_batches');
}
