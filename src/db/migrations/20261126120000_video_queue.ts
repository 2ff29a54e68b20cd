import type { Knex } from 'knex';

// The gateway's queue in front of a provider account's concurrency limit (issue 25): a task beyond
// the limit is accepted and waits in `waiting` (nothing sent upstream yet), dispatched fairly by
// the poller. One row per provider serialises the decision to send a task upstream across
// replicas (its row lock) and remembers the provider's own refusals (a pause with backoff).
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table video_tasks drop constraint video_tasks_status');
  await knex.raw(`alter table video_tasks add constraint video_tasks_status
    check (status in ('waiting', 'submitting', 'queued', 'in_progress', 'completed', 'failed', 'cancelled', 'review'))`);
  await knex.schema.alterTable('video_tasks', (t) => {
    // When the task first entered the gateway's queue (null: it never waited there).
    t.timestamp('queued_at', { useTz: true });
  });
  // The dispatch order (per customer, oldest first) and the queue position read this.
  await knex.raw(`create index video_tasks_waiting on video_tasks (provider_id, customer_id, created_at, id) where status = 'waiting'`);
  // The count of a provider's tasks in flight, read under its row lock at every dispatch.
  await knex.raw(`create index video_tasks_in_flight on video_tasks (provider_id) where status in ('submitting', 'queued', 'in_progress')`);
  await knex.schema.createTable('video_provider_queues', (t) => {
    t.text('provider_id').primary();
    // The provider refused a submission for its account's concurrency: nothing is sent before this.
    t.timestamp('paused_until', { useTz: true });
    // Refusals in a row (the backoff doubles with each); back to 0 at the next accepted submission.
    t.integer('refusals').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Whose turn it is: when each customer last had a task of the provider sent. The one served
  // longest ago goes first (fair-order.ts), so turns rotate even when one slot frees at a time.
  await knex.schema.createTable('video_queue_turns', (t) => {
    t.text('provider_id').notNullable();
    t.text('customer_id').notNullable();
    t.timestamp('last_dispatched_at', { useTz: true }).notNullable();
    t.primary(['provider_id', 'customer_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('video_queue_turns');
  await knex.schema.dropTable('video_provider_queues');
  await knex.raw('drop index video_tasks_in_flight');
  await knex.raw('drop index video_tasks_waiting');
  await knex.schema.alterTable('video_tasks', (t) => t.dropColumn('queued_at'));
  await knex.raw('alter table video_tasks drop constraint video_tasks_status');
  await knex.raw(`alter table video_tasks add constraint video_tasks_status
    check (status in ('submitting', 'queued', 'in_progress', 'completed', 'failed', 'cancelled', 'review'))`);
}
