import type { Knex } from 'knex';

// Credit grants: a process holds part of a customer's balance as one reservation of kind 'grant'
// and posts its requests' charges from it in batches (journal kind 'charge').
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table reservations drop constraint reservations_kind');
  await knex.raw(`alter table reservations add constraint reservations_kind check (kind in ('request', 'video', 'grant'))`);
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_kind');
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_kind
    check (kind in ('top_up', 'reserve', 'settle', 'release', 'adjustment', 'charge', 'unreserve'))`);
  await knex.raw('drop index reservations_pending_requests');
  await knex.raw(`create index reservations_pending_owned on reservations (owner, created_at) where status = 'pending' and kind in ('request', 'grant')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index reservations_pending_owned');
  await knex.raw(`create index reservations_pending_requests on reservations (created_at) where status = 'pending' and kind = 'request'`);
  await knex.raw('alter table ledger_entries drop constraint ledger_entries_kind');
  await knex.raw(`alter table ledger_entries add constraint ledger_entries_kind check (kind in ('top_up', 'reserve', 'settle', 'release', 'adjustment'))`);
  await knex.raw('alter table reservations drop constraint reservations_kind');
  await knex.raw(`alter table reservations add constraint reservations_kind check (kind in ('request', 'video'))`);
}
