import fs from 'node:fs';
import path from 'node:path';
import knexPkg, { type Knex } from 'knex';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';
import { migrationSource } from './migrations/index.ts';

export type { Knex };

const INT8_OID = 20;
const DATE_OID = 1082;
// Calendar dates stay 'YYYY-MM-DD' strings: a JS Date would shift them with the process time zone.
const keepDate = (value: string): string => value;

export interface DatabaseOptions {
  /** PostgreSQL connection string. Without it the embedded PGlite database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database; `memory://` keeps it in memory (tests). */
  pgliteDir?: string;
  poolMax?: number;
}

/** The knex configuration both the gateway and `knexfile.ts` use. */
export function knexConfig(options: DatabaseOptions): Knex.Config {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  if (options.databaseUrl) {
    // int8 (bigint) columns hold money in micro-units: they must never become JS numbers.
    pg.types.setTypeParser(INT8_OID, (value: string) => BigInt(value));
    pg.types.setTypeParser(DATE_OID, keepDate);
    return {
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
      migrations,
    };
  }
  const dir = options.pgliteDir ?? 'memory://';
  if (!dir.startsWith('memory://')) fs.mkdirSync(dir, { recursive: true });
  const pglite = new PGlite(dir, { parsers: { [INT8_OID]: (value: string) => BigInt(value), [DATE_OID]: keepDate } });
  return {
    client: ClientPgLite as unknown as Knex.Config['client'],
    // knex-pglite takes a function returning the instance; its typings do not describe it.
    connection: (() => ({ pglite })) as unknown as Knex.Config['connection'],
    migrations,
  };
}

export function isEmbedded(db: Knex): boolean {
  return db.client.config.client !== 'pg';
}

export async function openDatabase(options: DatabaseOptions): Promise<Knex> {
  const db = knexPkg.knex(knexConfig(options));
  await db.migrate.latest();
  return db;
}

export function pgliteDirFor(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
