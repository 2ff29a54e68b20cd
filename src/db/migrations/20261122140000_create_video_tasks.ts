import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per accepted video task: the request and price snapshots it was accepted with, the
  // upstream's id once submitted, and the poller's lease. Status transitions are guarded updates.
  await knex.schema.createTable('video_tasks', (t) => {
    t.text('id').primary(); // vt_<base62>
    t.text('customer_id').notNullable().references('customers.id');
    t.text('key_id').notNullable();
    t.text('model_id').notNullable();
    t.text('provider_id').notNullable();
    t.text('upstream_model').notNullable();
    t.text('upstream_task_id');
    t.text('status').notNullable();
    t.text('upstream_status');
    t.integer('progress');
    t.jsonb('request').notNullable(); // the normalised request, enough to resubmit
    t.jsonb('price').notNullable(); // per_second tiers and currency at acceptance
    t.bigInteger('price_version_id').notNullable();
    t.bigInteger('reserved').notNullable();
    t.text('idempotency_key');
    t.text('request_hash').notNullable();
    t.jsonb('error');
    t.jsonb('result'); // the upstream's raw result (operators only)
    t.integer('billed_seconds');
    t.text('billed_tier');
    t.bigInteger('billed_amount');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_poll_at', { useTz: true });
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('deadline_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.unique(['customer_id', 'idempotency_key']);
  });
  await knex.raw(`alter table video_tasks add constraint video_tasks_status
    check (status in ('submitting', 'queued', 'in_progress', 'completed', 'failed', 'cancelled', 'review'))`);
  // The poller's only query when nothing is due: an index scan on due, unleased, live tasks.
  await knex.raw(`create index video_tasks_due on video_tasks (next_poll_at) where status in ('submitting', 'queued', 'in_progress')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('video_tasks');
}
