import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every gateway process registers itself and heartbeats; a reservation names the process that
  // owns it, so a sweeper can end the holds of a process that died (crash, kill -9).
  await knex.schema.createTable('gateway_instances', (t) => {
    t.text('id').primary(); // gw_<base62>
    t.text('hostname').notNullable();
    t.integer('pid').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('stopped_at', { useTz: true });
  });
  await knex.schema.alterTable('reservations', (t) => {
    // request: a request's hold, owned by a process; video: owned by its task (the poller ends it).
    t.text('kind').notNullable().defaultTo('request');
    t.text('owner');
    // The owner's last checkpoint of what was delivered: {charge: micro-units, usage: {...}}.
    t.jsonb('progress');
  });
  await knex.raw(`update reservations set kind = 'video' where ref like 'vt\\_%'`);
  await knex.raw(`alter table reservations add constraint reservations_kind check (kind in ('request', 'video'))`);
  await knex.raw(`create index reservations_pending_requests on reservations (created_at) where status = 'pending' and kind = 'request'`);

  await knex.schema.alterTable('request_logs', (t) => {
    t.dropColumn('video_seconds');
    t.dropColumn('video_tier');
    t.jsonb('usage_detail');
    t.boolean('interrupted').notNullable().defaultTo(false);
    t.index(['key_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.dropIndex(['key_id', 'id']);
    t.dropColumn('interrupted');
    t.dropColumn('usage_detail');
    t.integer('video_seconds');
    t.text('video_tier');
  });
  await knex.raw('drop index reservations_pending_requests');
  await knex.raw('alter table reservations drop constraint reservations_kind');
  await knex.schema.alterTable('reservations', (t) => {
    t.dropColumn('progress');
    t.dropColumn('owner');
    t.dropColumn('kind');
  });
  await knex.schema.dropTable('gateway_instances');
}
