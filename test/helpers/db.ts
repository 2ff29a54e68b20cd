import knexPkg, { type Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.ts';

/**
 * One migrated database per test process: in-memory PGlite (in its own process) by default, or,
 * when DATABASE_URL is set, a fresh PostgreSQL database created beside it (named after this
 * process) and dropped at the end, so parallel runs and a developer's own data never collide.
 * Under `mocha --parallel` each worker process is such a test process: it keeps its database for
 * every file it runs (see test/setup.ts), and the main process drops the workers' databases at the
 * end (a worker is ended without a chance to do it itself).
 */
let shared: Promise<Knex> | undefined;
let dropAfter: { adminUrl: string; name: string } | undefined;
let inUse: string | undefined;

/** The PostgreSQL URL of this process's test database (for child processes), once opened. */
export function testDatabaseUrlInUse(): string | undefined {
  return inUse;
}

export function usingPostgres(): boolean {
  return Boolean(process.env.DATABASE_URL);
}

/** Whether this process is a worker of `mocha --parallel` (mocha numbers them in MOCHA_WORKER_ID). */
export function inParallelWorker(): boolean {
  return process.env.MOCHA_WORKER_ID !== undefined;
}

const baseName = (url: string) => new URL(url).pathname.slice(1) || 'gateway';

/** A worker's database carries its run's (the main process's) pid, for that process to drop it. */
const databaseName = (url: string) => `${baseName(url)}_test_${inParallelWorker() ? `${process.ppid}_` : ''}${process.pid}`;

async function createPostgresDatabase(url: string): Promise<string> {
  const name = databaseName(url);
  const admin = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`drop database if exists ${name} with (force)`);
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  dropAfter = { adminUrl: url, name };
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  inUse = testUrl.toString();
  return inUse;
}

export function testDatabaseUrl(): Promise<string | undefined> {
  return process.env.DATABASE_URL ? createPostgresDatabase(process.env.DATABASE_URL) : Promise.resolve(undefined);
}

export function getTestDatabase(): Promise<Knex> {
  shared ??= (async () => openDatabase({ databaseUrl: await testDatabaseUrl(), poolMax: 20 }))();
  return shared;
}

/** Empties every table but the migration bookkeeping and the tables named in `keep`. */
export async function resetDatabase(db: Knex, { keep = [] }: { keep?: string[] } = {}): Promise<void> {
  const { rows } = await db.raw<{ rows: Array<{ tablename: string }> }>(
    "select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_migrations%'",
  );
  const emptied = rows.filter((r) => !keep.includes(r.tablename));
  if (emptied.length === 0) return;
  await db.raw(`truncate ${emptied.map((r) => `"${r.tablename}"`).join(', ')} restart identity cascade`);
}

export async function closeTestDatabase(): Promise<void> {
  if (!shared) return;
  const db = await shared;
  shared = undefined;
  await db.destroy();
  if (dropAfter) {
    const admin = knexPkg.knex({ client: 'pg', connection: dropAfter.adminUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`drop database if exists ${dropAfter.name} with (force)`).finally(() => admin.destroy());
    dropAfter = undefined;
  }
}

/** Drops the databases this run's parallel workers created (run by the main process at the end). */
export async function dropWorkerDatabases(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const admin = knexPkg.knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw<{ rows: Array<{ datname: string }> }>('select datname from pg_database where datname like ?', [
      `${baseName(url)}_test_${process.pid}_%`,
    ]);
    for (const { datname } of rows) await admin.raw(`drop database if exists ${datname} with (force)`);
  } finally {
    await admin.destroy();
  }
}
