import type { Knex } from 'knex';

// The task table serves the task engine (src/tasks): any registered kind's rows, not only `video`
// and `response`, so a new kind needs no migration; the check keeps kind names to what the engine
// registers (lower case, digits, _). Existing rows keep their kinds.
//
// One customer's refusals no longer pause a provider for everyone (src/tasks/refusals.ts): the
// provider's row remembers whose submission it answered last and whether it refused it, and each
// customer's turn row (video_queue_turns) carries that customer's own pause and refusals in a row.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table video_tasks drop constraint video_tasks_kind');
  await knex.raw(`alter table video_tasks add constraint video_tasks_kind check (kind ~ '^[a-z][a-z0-9_]{0,31}$')`);
  await knex.schema.alterTable('video_provider_queues', (t) => {
    t.text('last_customer_id');
    t.boolean('last_refused').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('video_queue_turns', (t) => {
    // Refused for this customer's own submissions: none of its tasks at the provider is sent before this.
    t.timestamp('paused_until', { useTz: true });
    t.integer('refusals').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('video_queue_turns', (t) => {
    t.dropColumn('paused_until');
    t.dropColumn('refusals');
  });
  await knex.schema.alterTable('video_provider_queues', (t) => {
    t.dropColumn('last_customer_id');
    t.dropColumn('last_refused');
  });
  await knex.raw('alter table video_tasks drop constraint video_tasks_kind');
  await knex.raw(`alter table video_tasks add constraint video_tasks_kind check (kind in ('video', 'response'))`);
}
