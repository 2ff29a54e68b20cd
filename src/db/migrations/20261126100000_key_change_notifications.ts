import type { Knex } from 'knex';

// Every change to a key or a customer row, by whatever writes it (the admin API, a script, an
// operator's SQL), sends a notification on `gateway_key_changes` in the same transaction:
// PostgreSQL delivers it at commit, to every gateway listening on the database, which then forgets
// what it remembered of that key or customer (src/customers/key-changes.ts). The payload names the
// row: {"key": "key_…"} or {"customer": "cus_…"}. New rows need none: only keys that exist are
// remembered. The embedded database (one process per data directory) sends them to no one.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create function gateway_key_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('gateway_key_changes', json_build_object(tg_argv[0], old.id)::text);
      return null;
    end $$`);
  await knex.raw(`create trigger api_keys_changed after update or delete on api_keys
    for each row execute function gateway_key_changed('key')`);
  await knex.raw(`create trigger customers_changed after update or delete on customers
    for each row execute function gateway_key_changed('customer')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger customers_changed on customers');
  await knex.raw('drop trigger api_keys_changed on api_keys');
  await knex.raw('drop function gateway_key_changed()');
}
