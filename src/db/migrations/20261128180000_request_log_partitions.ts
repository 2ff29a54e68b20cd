import type { Knex } from 'knex';

// The request log partitioned by month of created_at (issue 38), so retention drops whole months
// (src/logs/retention.ts) and a table of a hundred million rows stays a set of small ones.
//
// The table is rebuilt from its own definition at this moment (`like ... including all`): every
// column, default and check added by earlier migrations is kept, every index is made again on the
// partitioned table, and a unique one (the primary key on id, the one on request_id) gains the
// partition key, as PostgreSQL requires. Rows are copied into a partition per month they fall in,
// the current month and the next two are created ahead, and a default partition takes a row of a
// month with no partition (the job moves such rows into their month when it creates it).
//
// A request id carries its arrival time (src/shared/ids.ts), which is its row's created_at:
// `request_log_created_at(id)` says it, so a lookup by id names its partition. The ids of rows
// written before (random ids) are listed in request_log_legacy_ids with their created_at.
const DEFAULT_PARTITION = 'request_logs_default';

interface IndexRow {
  name: string;
  definition: string;
  constraint_name: string | null;
  constraint_definition: string | null;
}

export async function up(knex: Knex): Promise<void> {
  const indexes = await indexesOf(knex, 'request_logs');
  const foreignKeys = (
    await knex.raw<{ rows: Array<{ name: string; definition: string }> }>(
      `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = 'request_logs'::regclass and contype = 'f'`,
    )
  ).rows;
  const sequence = (await knex.raw<{ rows: Array<{ name: string | null }> }>(`select pg_get_serial_sequence('request_logs', 'id') as name`)).rows[0]?.name;

  await knex.raw('alter table request_logs rename to request_logs_unpartitioned');
  await knex.raw('create table request_logs (like request_logs_unpartitioned including all excluding indexes) partition by range (created_at)');
  await knex.raw(ENSURE_PARTITION_FUNCTION);
  const { rows: months } = await knex.raw<{ rows: Array<{ month: string }> }>(
    `select distinct date_trunc('month', created_at at time zone 'UTC')::text as month from request_logs_unpartitioned
     union select (date_trunc('month', now() at time zone 'UTC') + make_interval(months => n))::text from generate_series(0, 2) n`,
  );
  for (const { month } of months) await knex.raw(`select request_logs_ensure_partition((?::timestamp) at time zone 'UTC')`, [month]);
  await knex.raw(`create table ${DEFAULT_PARTITION} partition of request_logs default`);
  await knex.raw('insert into request_logs select * from request_logs_unpartitioned');

  await knex.raw('create table request_log_legacy_ids (request_id text primary key, created_at timestamptz not null)');
  await knex.raw(REQUEST_LOG_CREATED_AT_FUNCTION);
  await knex.raw('insert into request_log_legacy_ids select request_id, created_at from request_logs_unpartitioned');
  await knex.raw('create index request_log_legacy_ids_created_at on request_log_legacy_ids (created_at)');

  if (sequence) await knex.raw(`alter sequence ${sequence} owned by request_logs.id`);
  await knex.raw('drop table request_logs_unpartitioned');
  for (const index of indexes) await knex.raw(partitionedIndex(index));
  for (const key of foreignKeys) await knex.raw(`alter table request_logs add constraint "${key.name}" ${key.definition}`);

  // What retention removed: receipts of a request older than this say so (src/domain/billing).
  await knex.raw(`create table request_log_retention (
    id smallint primary key default 1 check (id = 1),
    removed_before timestamptz not null)`);
  // One run of a job across replicas (src/jobs/lease.ts).
  await knex.raw(`create table job_leases (
    name text primary key,
    holder text,
    leased_until timestamptz not null,
    last_started_at timestamptz not null)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table job_leases');
  await knex.raw('drop table request_log_retention');
  const indexes = await indexesOf(knex, 'request_logs');
  await knex.raw('alter table request_logs rename to request_logs_partitioned');
  await knex.raw('create table request_logs (like request_logs_partitioned including all excluding indexes)');
  await knex.raw('insert into request_logs select * from request_logs_partitioned');
  const sequence = (await knex.raw<{ rows: Array<{ name: string | null }> }>(`select pg_get_serial_sequence('request_logs_partitioned', 'id') as name`)).rows[0]
    ?.name;
  if (sequence) await knex.raw(`alter sequence ${sequence} owned by request_logs.id`);
  await knex.raw('drop table request_logs_partitioned');
  await knex.raw('drop function request_log_created_at(text)');
  await knex.raw('drop function request_logs_ensure_partition(timestamptz)');
  await knex.raw('drop table request_log_legacy_ids');
  for (const index of indexes) {
    // The partition key leaves the unique keys it joined.
    const unpartitioned = {
      ...index,
      definition: withoutCreatedAt(index.definition),
      constraint_definition: index.constraint_definition && withoutCreatedAt(index.constraint_definition),
    };
    await knex.raw(unpartitionedIndex(unpartitioned));
  }
}

/** The table's indexes, with the constraint each one backs (primary key, unique), if any. */
async function indexesOf(knex: Knex, table: string): Promise<IndexRow[]> {
  const { rows } = await knex.raw<{ rows: IndexRow[] }>(
    `select i.relname as name, pg_get_indexdef(x.indexrelid) as definition,
            c.conname as constraint_name, pg_get_constraintdef(c.oid) as constraint_definition
       from pg_index x
       join pg_class i on i.oid = x.indexrelid
       left join pg_constraint c on c.conindid = x.indexrelid and c.conrelid = x.indrelid and c.contype in ('p', 'u')
      where x.indrelid = ?::regclass
      order by i.relname`,
    [table],
  );
  return rows;
}

/** A unique key of a partitioned table includes the partition key. */
const withCreatedAt = (columns: string): string => (/\bcreated_at\b/.test(columns) ? columns : `${columns}, created_at`);
const withoutCreatedAt = (text: string): string => text.replace(/, created_at\)/, ')');

function partitionedIndex(index: IndexRow): string {
  if (index.constraint_name && index.constraint_definition) {
    const definition = index.constraint_definition.replace(
      /^(PRIMARY KEY|UNIQUE) \((.*)\)$/,
      (_, kind: string, columns: string) => `${kind} (${withCreatedAt(columns)})`,
    );
    return `alter table request_logs add constraint "${index.constraint_name}" ${definition}`;
  }
  if (/^CREATE UNIQUE INDEX/.test(index.definition))
    return index.definition.replace(
      / USING (\w+) \((.*?)\)( WHERE .*)?$/,
      (_, method: string, columns: string, where = '') => ` USING ${method} (${withCreatedAt(columns)})${where}`,
    );
  return index.definition;
}

function unpartitionedIndex(index: IndexRow): string {
  if (index.constraint_name && index.constraint_definition)
    return `alter table request_logs add constraint "${index.constraint_name}" ${index.constraint_definition}`;
  return index.definition;
}

/**
 * Creates the partition of the month `month` falls in, if it is missing: made apart and attached
 * (attaching locks the parent less than creating a partition in place), with the rows of that
 * month the default partition holds moved into it first. Serialised by an advisory lock, so
 * replicas may call it at once; a lock it cannot have within 5 s fails it (the next run retries).
 */
const ENSURE_PARTITION_FUNCTION = `
create function request_logs_ensure_partition(month timestamptz) returns boolean language plpgsql as $$
declare
  start_at timestamptz := date_trunc('month', month at time zone 'UTC') at time zone 'UTC';
  end_at timestamptz := (date_trunc('month', month at time zone 'UTC') + interval '1 month') at time zone 'UTC';
  name text := 'request_logs_y' || to_char(month at time zone 'UTC', 'YYYY"m"MM');
begin
  perform set_config('lock_timeout', '5s', true);
  perform pg_advisory_xact_lock(hashtext('request_logs_ensure_partition'));
  if to_regclass(name) is not null then
    return false;
  end if;
  execute format('create table %I (like request_logs including all)', name);
  if to_regclass('${DEFAULT_PARTITION}') is not null then
    execute format('with moved as (delete from ${DEFAULT_PARTITION} where created_at >= %L and created_at < %L returning *)
                    insert into %I select * from moved', start_at, end_at, name);
  end if;
  execute format('alter table request_logs attach partition %I for values from (%L) to (%L)', name, start_at, end_at);
  return true;
end $$`;

/**
 * The created_at of the request log row of a request id: the arrival time the id carries (8
 * base62 digits of Unix milliseconds after `req_`, src/shared/ids.ts), or the time listed for an
 * id minted before ids carried one; the epoch for a string that is not a request id.
 */
const REQUEST_LOG_CREATED_AT_FUNCTION = `
create function request_log_created_at(request_id text) returns timestamptz language sql stable parallel safe as $$
  select coalesce(
    (select l.created_at from request_log_legacy_ids l where l.request_id = $1),
    case when $1 ~ '^req_[0-9A-Za-z]{24}$' then
      'epoch'::timestamptz + interval '1 millisecond' * (
        select sum((strpos('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', substr($1, 4 + d, 1)) - 1)::numeric * power(62::numeric, 8 - d))
          from generate_series(1, 8) d)::float8
    else 'epoch'::timestamptz end)
$$`;
