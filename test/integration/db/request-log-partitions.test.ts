import { expect } from 'chai';
import knexPkg, { type Knex } from 'knex';
import { databaseConfig } from '../../../src/db/knex.ts';
import { migrationSource } from '../../../src/db/migrations/index.ts';
import { usingPostgres } from '../../helpers/db.ts';

const PARTITIONS = '20261128180000_request_log_partitions';

// The migration that partitions the request log (issue 38) converts a table that already holds
// rows, keeping them and every column, default and index that earlier migrations gave it (a
// column another change added just before is kept too), and can be rolled back.
describe(`migration: the request log partitioned by month (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let db: Knex;
  let stop: () => Promise<void>;
  let adminUrl: string | undefined;
  const name = `gateway_partitions_${process.pid}`;

  before(async () => {
    let url: string | undefined;
    if (process.env.DATABASE_URL) {
      adminUrl = process.env.DATABASE_URL;
      const admin = knexPkg.knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.raw(`create database ${name}`);
      await admin.destroy();
      const fresh = new URL(adminUrl);
      fresh.pathname = `/${name}`;
      url = fresh.toString();
    }
    const database = await databaseConfig({ databaseUrl: url });
    db = knexPkg.knex(database.config);
    stop = database.stop;
    // Every migration before this one.
    const all = (await migrationSource.getMigrations([])).map(([migration]) => migration);
    for (const migration of all.slice(0, all.indexOf(PARTITIONS))) await db.migrate.up({ name: migration });
  });
  after(async () => {
    await db?.destroy();
    await stop?.();
    if (adminUrl) {
      const admin = knexPkg.knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`drop database if exists ${name} with (force)`).finally(() => admin.destroy());
    }
  });

  const columns = async () =>
    (
      await db.raw(
        `select column_name, data_type, is_nullable, column_default from information_schema.columns where table_name = 'request_logs' order by ordinal_position`,
      )
    ).rows;
  const indexes = async () =>
    (await db.raw(`select indexname, indexdef from pg_indexes where tablename = 'request_logs' order by 1`)).rows.map(
      (r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef.replace(' ON ONLY ', ' ON ')],
    );
  const everyRow = async () =>
    (await db('request_logs').orderBy('id').select('*')).map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));

  it('keeps every row, column, default and index; unique keys gain created_at; a partition per month with rows, this month and the next two', async () => {
    // A column and an index another change may add just before this migration (as logged_at and
    // its indexes were, by 20261128150000_commit_ordered_times: checked below with the rest).
    await db.raw(`alter table request_logs add column region text not null default 'eu'`);
    await db.raw('create index request_logs_customer_region on request_logs (customer_id, region)');
    await db.raw(`insert into request_logs (request_id, customer_id, key_id, endpoint, model, status, latency_ms, input_tokens, cost, usage_detail, created_at) values
      ('req_Legacy000000000000000001', 'cus_a', 'key_a', 'messages_create', 'sandbox/claude-haiku', 200, 12, 1200, 3750, '{"speed": "fast"}', '2025-03-10T10:00:00.123Z'),
      ('req_Legacy000000000000000002', 'cus_a', 'key_a', 'chat_completions_create', 'sandbox/chat-model', 500, 7, null, null, null, '2026-09-30T23:59:59.999Z'),
      ('req_Legacy000000000000000003', 'cus_b', null, 'models_list', null, 200, 1, null, null, null, now())`);
    const columnsBefore = await columns();
    const rowsBefore = await everyRow();
    const indexesBefore = await indexes();

    await db.migrate.up({ name: PARTITIONS });

    expect(await columns()).to.deep.equal(columnsBefore);
    expect(await everyRow()).to.deep.equal(rowsBefore);
    // Main's logged_at (the export watermark) kept with its default and its indexes.
    expect((await columns()).find((c: { column_name: string }) => c.column_name === 'logged_at')).to.include({
      is_nullable: 'NO',
      column_default: 'clock_timestamp()',
    });
    expect((await indexes()).map(([index]: [string, string]) => index)).to.include.members([
      'request_logs_logged',
      'request_logs_customer_logged',
      'request_logs_customer_region',
    ]);
    const unique = (def: string) => def.replace(/\(id\)$/, '(id, created_at)').replace(/\(request_id\)$/, '(request_id, created_at)');
    expect(await indexes()).to.deep.equal(indexesBefore.map(([index, def]: [string, string]) => [index, unique(def)]));
    const { rows: parts } = await db.raw(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_logs'::regclass`,
    );
    const names = parts.map((p: { name: string }) => p.name);
    const month = (offset: number) => {
      const now = new Date();
      const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
      return `request_logs_y${at.getUTCFullYear()}m${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
    };
    expect(names).to.include.members(['request_logs_y2025m03', 'request_logs_y2026m09', month(0), month(1), month(2), 'request_logs_default']);
    // The rows' ids, minted before ids carried a time, still name their rows.
    for (const row of rowsBefore) {
      const { rows } = await db.raw('select request_id from request_logs where request_id = ? and created_at = request_log_created_at(?)', [
        row.request_id,
        row.request_id,
      ]);
      expect(rows, row.request_id).to.have.length(1);
    }
    // The id sequence goes on; the new column's default still fills it.
    const [added] = await db('request_logs')
      .insert({ request_id: 'req_after', endpoint: 'models_list', status: 200, latency_ms: 1, created_at: new Date() })
      .returning(['id', 'logged_at', 'region']);
    expect(BigInt(added.id) > BigInt(rowsBefore.at(-1)!.id), 'a new id above the copied ones').to.equal(true);
    expect(added.logged_at).to.not.equal(null);
    expect(added.region).to.equal('eu');
  });

  it('rolls back to one table with the same rows, columns and indexes', async () => {
    const rowsBefore = await everyRow();
    await db.migrate.down({ name: PARTITIONS });
    expect(await everyRow()).to.deep.equal(rowsBefore);
    const { rows } = await db.raw(`select relkind from pg_class where relname = 'request_logs'`);
    expect(rows[0].relkind).to.equal('r');
    expect((await indexes()).map(([, def]: [string, string]) => def)).to.include.members([
      'CREATE UNIQUE INDEX request_logs_pkey ON public.request_logs USING btree (id)',
      'CREATE UNIQUE INDEX request_logs_request_id_unique ON public.request_logs USING btree (request_id)',
      'CREATE INDEX request_logs_customer_logged ON public.request_logs USING btree (customer_id, logged_at)',
    ]);
    await db.migrate.up({ name: PARTITIONS });
    expect(await everyRow()).to.deep.equal(rowsBefore);
  });
});
