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

/** The tables in an order that deletes referencing rows before the rows they reference, and the sequences each owns. */
interface Layout {
  tables: string[];
  sequences: Map<string, string[]>;
}
const layouts = new WeakMap<Knex, Promise<Layout>>();

async function readLayout(db: Knex): Promise<Layout> {
  // Partitions are left to their parent: a delete from it reaches them, whichever exist by then.
  const { rows: tables } = await db.raw<{ rows: Array<{ name: string }> }>(
    `select c.relname as name from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
        and c.relname not like 'knex_migrations%'`,
  );
  const { rows: references } = await db.raw<{ rows: Array<{ child: string; parent: string }> }>(
    `select distinct c.relname as child, p.relname as parent from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and c.relnamespace = 'public'::regnamespace and not c.relispartition and c.oid <> p.oid`,
  );
  const { rows: owned } = await db.raw<{ rows: Array<{ sequence: string; owner: string }> }>(
    `select s.relname as sequence, t.relname as owner from pg_class s
       join pg_depend d on d.objid = s.oid and d.deptype in ('a', 'i') join pg_class t on t.oid = d.refobjid
      where s.relkind = 'S' and s.relnamespace = 'public'::regnamespace`,
  );
  // Depth-first: a table comes after every table that references it.
  const referencedBy = new Map<string, string[]>();
  for (const { child, parent } of references) referencedBy.set(parent, [...(referencedBy.get(parent) ?? []), child]);
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const child of referencedBy.get(table) ?? []) visit(child, path);
    path.delete(table);
    ordered.push(table);
  };
  for (const { name } of tables) visit(name, new Set());
  const sequences = new Map<string, string[]>();
  for (const { sequence, owner } of owned) sequences.set(owner, [...(sequences.get(owner) ?? []), sequence]);
  return { tables: ordered, sequences };
}

/**
 * Empties every table but the migration bookkeeping and the tables named in `keep`, and restarts
 * the sequences of those it empties, as a fresh database has them. Rows are deleted, children
 * first, rather than truncated: a test leaves a handful of rows in a few tables, and TRUNCATE
 * makes new files for every table and index it names (the embedded database took about 100 ms for
 * all of them, against about 15 ms for the deletes). The layout is read once per database and
 * again if a table it names is gone.
 */
export async function resetDatabase(db: Knex, { keep = [] }: { keep?: string[] } = {}, retried = false): Promise<void> {
  let layout = layouts.get(db);
  if (!layout) layouts.set(db, (layout = readLayout(db)));
  const { tables, sequences } = await layout.catch((error: unknown) => {
    layouts.delete(db);
    throw error;
  });
  const emptied = tables.filter((table) => !keep.includes(table));
  if (emptied.length === 0) return;
  const restart = emptied.flatMap((table) => sequences.get(table) ?? []).map((sequence) => `select setval('"${sequence}"', 1, false);`);
  try {
    await db.raw([...emptied.map((table) => `delete from "${table}";`), ...restart].join('\n'));
  } catch (error) {
    if (retried || (error as { code?: string }).code !== '42P01') throw error; // undefined_table: read the layout again, once
    layouts.delete(db);
    return resetDatabase(db, { keep }, true);
  }
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
