import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per public API request: what was asked, who asked, what it cost. Never prompts,
  // outputs or keys.
  await knex.schema.createTable('request_logs', (t) => {
    t.bigIncrements('id').primary();
    t.text('request_id').notNullable().unique();
    t.text('customer_id');
    t.text('key_id');
    t.text('endpoint').notNullable();
    t.text('model');
    t.text('provider');
    t.integer('status').notNullable();
    t.text('error_type');
    t.integer('latency_ms').notNullable();
    t.integer('ttfb_ms');
    t.bigInteger('input_tokens');
    t.bigInteger('output_tokens');
    t.bigInteger('cache_read_tokens');
    t.bigInteger('cache_write_tokens');
    t.integer('video_seconds');
    t.text('video_tier');
    t.bigInteger('cost');
    t.boolean('usage_estimated').notNullable().defaultTo(false);
    t.boolean('stream').notNullable().defaultTo(false);
    t.text('upstream_request_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['created_at', 'id']);
    t.index(['customer_id', 'id']);
    t.index(['model', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('request_logs');
}
