import knexPkg, { type Knex } from 'knex';
import { openDatabase } from '../../src/db/knex.ts';

/**
 * One migrated database per test process: in-memory PGlite (in its own process) by default, or,
 * when DATABASE_URL is set, a fresh PostgreSQL database created beside it (named after this
 * process) and dropped at the end, so parallel runs and a developer's own data never collide.
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

async function createPostgresDatabase(url: string): Promise<string> {
  const base = new URL(url);
  const name = `${base.pathname.slice(1) || 'gateway'}_test_${process.pid}`;
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

/** Empties every table but the migration bookkeeping. */
export async function resetDatabase(db: Knex): Promise<void> {
  const { rows } = await db.raw<{ rows: Array<{ tablename: string }> }>(
    "select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_migrations%'",
  );
  if (rows.length === 0) return;
  await db.raw(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} restart identity cascade`);
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
