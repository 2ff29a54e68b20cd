import path from 'node:path';
import knexPkg, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.ts';
import { startEmbeddedDatabase, type EmbeddedOptions } from './embedded/index.ts';

export type { Knex };

const INT8_OID = 20;
const DATE_OID = 1082;

// Both databases are reached through pg, so one set of type parsers serves both. int8 (bigint)
// columns hold money in micro-units: they must never become JS numbers. Calendar dates stay
// 'YYYY-MM-DD' strings: a JS Date would shift them with the process time zone.
pg.types.setTypeParser(INT8_OID, (value: string) => BigInt(value));
pg.types.setTypeParser(DATE_OID, (value: string) => value);

export interface DatabaseOptions {
  /** PostgreSQL connection string. Without it the embedded PGlite database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database; `memory://` keeps it in memory (tests). */
  pgliteDir?: string;
  poolMax?: number;
  /** The embedded database's process ended without being asked to. */
  onEmbeddedExit?: EmbeddedOptions['onUnexpectedExit'];
}

export interface DatabaseConfig {
  config: Knex.Config;
  /** Stops what serves the database, after knex's `destroy()` (the embedded database's process). */
  stop(): Promise<void>;
}

/** The knex configuration both the gateway and `knexfile.ts` use; starts the embedded database. */
export async function databaseConfig(options: DatabaseOptions): Promise<DatabaseConfig> {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  if (options.databaseUrl) {
    return {
      config: { client: 'pg', connection: options.databaseUrl, pool: { min: 0, max: options.poolMax ?? 10 }, migrations },
      stop: async () => {},
    };
  }
  const embedded = await startEmbeddedDatabase(options.pgliteDir ?? 'memory://', { onUnexpectedExit: options.onEmbeddedExit });
  return {
    config: {
      client: 'pg',
      connection: embedded.connection,
      pool: {
        // Exactly one connection: PGlite is one Postgres backend, and the socket server would
        // interleave the protocol messages of several connections.
        min: 0,
        max: 1,
        // That backend outlives a connection, with its prepared statements and settings: start
        // each connection as a new session would (pg's own cache of statements starts empty).
        afterCreate: (connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void) => {
          connection.query('discard all').then(() => done(null, connection), (error: Error) => done(error, connection));
        },
      },
      migrations,
    },
    stop: () => embedded.close(),
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Knex> {
  const { config, stop } = await databaseConfig(options);
  const db = knexPkg.knex(config);
  // knex has no hook for "after destroy": chain the embedded database's close onto it (knex
  // defines `destroy` read-only, but configurable).
  const destroyPool = db.destroy.bind(db);
  const destroy = async () => {
    try {
      await destroyPool();
    } finally {
      await stop();
    }
  };
  Object.defineProperty(db, 'destroy', { value: destroy, configurable: true });
  try {
    await db.migrate.latest();
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

export function pgliteDirFor(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
