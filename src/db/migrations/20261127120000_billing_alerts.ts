import type { Knex } from 'knex';

// Low-balance alerts and signed webhooks (issue 28). One row of settings per customer that set
// any: the threshold and whether it is armed (above it: a crossing below sends one webhook and
// disarms; back at or above it re-arms), the webhook URL and its signing secret, and whether video
// tasks' terminal states are announced (from when it was switched on). Every webhook is a
// delivery row, retried with backoff until delivered or given up, with a log of its attempts.
// A video task announced once is marked, so any number of replicas announce it once.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('billing_alerts', (t) => {
    t.text('customer_id').primary().references('customers.id');
    t.bigInteger('low_balance_threshold');
    t.boolean('armed').notNullable().defaultTo(true);
    t.text('webhook_url');
    t.text('webhook_secret').notNullable();
    t.boolean('video_events').notNullable().defaultTo(false);
    t.timestamp('video_events_since', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table billing_alerts add constraint billing_alerts_threshold check (low_balance_threshold is null or low_balance_threshold >= 0)');
  await knex.raw('create index billing_alerts_thresholds on billing_alerts (customer_id) where low_balance_threshold is not null');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary(); // msg_<base62>: the webhook-id header
    t.text('customer_id').notNullable().references('customers.id');
    t.text('type').notNullable();
    t.text('url').notNullable();
    t.jsonb('payload').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('lease_until', { useTz: true });
    t.integer('last_status');
    t.text('last_error');
    t.jsonb('log').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.index(['customer_id', 'created_at']);
  });
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_status check (status in ('pending', 'delivered', 'failed'))`);
  await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`);

  await knex.schema.alterTable('video_tasks', (t) => {
    t.timestamp('announced_at', { useTz: true });
  });
  await knex.raw(`create index video_tasks_unannounced on video_tasks (customer_id, completed_at)
    where announced_at is null and status in ('completed', 'failed', 'cancelled')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists video_tasks_unannounced');
  await knex.schema.alterTable('video_tasks', (t) => t.dropColumn('announced_at'));
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('billing_alerts');
}
