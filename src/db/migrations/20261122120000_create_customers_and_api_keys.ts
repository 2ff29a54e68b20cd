import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('customers', (t) => {
    t.text('id').primary(); // cus_<base62>
    t.text('name').notNullable();
    // The operator's own reference for the customer (CRM id, tenant slug); unique when present.
    t.text('external_reference').unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary(); // key_<base62>
    t.text('customer_id').notNullable().references('customers.id');
    t.text('name').notNullable();
    // SHA-256 of the whole key. Keys carry 238 bits of randomness, so a fast hash is safe.
    t.text('key_hash').notNullable().unique();
    // Enough of the key to recognise it in a list ("sk-gw-Ab12…wxyz"), never enough to use it.
    t.text('redacted').notNullable();
    // JSON array of public model ids this key may reach; NULL means every model.
    t.jsonb('allowed_models');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['customer_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('customers');
}
