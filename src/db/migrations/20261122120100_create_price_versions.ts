import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every distinct price a model has had. A catalogue load whose price differs from the model's
  // latest row appends a new version; charges name the version they used.
  await knex.schema.createTable('price_versions', (t) => {
    t.bigIncrements('id').primary();
    t.text('model_id').notNullable();
    t.integer('version').notNullable();
    t.jsonb('price').notNullable();
    t.text('price_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['model_id', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('price_versions');
}
