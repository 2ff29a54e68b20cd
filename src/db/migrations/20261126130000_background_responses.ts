import type { Knex } from 'knex';

// Background responses (`background: true` on POST /v1/responses, issue 26) are asynchronous
// tasks like videos: held at create, polled by the same poller until the provider reports a final
// status, settled once from the response's usage, or sent to review. They share video_tasks (its
// lease, backoff, deadline and review machinery); `kind` tells them apart, and the customer's video
// endpoints show only `video` rows. A response task keeps numbers only (the hold's input estimate
// and output bound, the price), never the request's content; `upstream_task_id` is the response id.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('video_tasks', (t) => {
    t.text('kind').notNullable().defaultTo('video');
  });
  await knex.raw(`alter table video_tasks add constraint video_tasks_kind check (kind in ('video', 'response'))`);
  await knex.raw(`create index video_tasks_response on video_tasks (upstream_task_id) where kind = 'response'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index video_tasks_response');
  await knex.raw('alter table video_tasks drop constraint video_tasks_kind');
  await knex.schema.alterTable('video_tasks', (t) => t.dropColumn('kind'));
}
