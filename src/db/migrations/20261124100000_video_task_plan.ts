import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('video_tasks', (t) => {
    // The plan's cancel capability at acceptance: a later catalogue edit does not change what a
    // task was sold with. Null on tasks accepted before this column (the catalogue decides).
    t.boolean('cancellable');
    // When the provider stops serving the task's files (set on completion when known).
    t.timestamp('expires_at', { useTz: true });
  });
  // GET /v1/videos: a customer's tasks by creation time, paged by (created_at, id).
  await knex.raw('create index video_tasks_customer_created on video_tasks (customer_id, created_at, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index video_tasks_customer_created');
  await knex.schema.alterTable('video_tasks', (t) => {
    t.dropColumn('cancellable');
    t.dropColumn('expires_at');
  });
}
