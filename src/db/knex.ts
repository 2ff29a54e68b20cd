import path from 'node:path';
import knexPkg, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.ts';
import { startEmbeddedDatabase, type EmbeddedOptions } from './embedded/index.ts';
import type { Logger } from '../logger.ts';
import { QueryTimeoutError } from './unavailable.ts';

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
  /**
   * How long a query, a connection attempt or a wait for a pooled connection may take before it
   * fails (0: forever). Migrations are exempt. A query past it takes its connection down with it
   * (see guardQueries).
   */
  queryTimeoutMs?: number;
  /** Where knex's own warnings go (default: the console). */
  logger?: Logger;
}

export interface DatabaseConfig {
  config: Knex.Config;
  /** Stops what serves the database, after knex's `destroy()` (the embedded database's process). */
  stop(): Promise<void>;
}

/** The knex configuration both the gateway and `knexfile.ts` use; starts the embedded database. */
export async function databaseConfig(options: DatabaseOptions, guard: QueryGuard = { timeoutMs: 0 }): Promise<DatabaseConfig> {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  const timeouts = options.queryTimeoutMs ? { acquireConnectionTimeout: options.queryTimeoutMs } : {};
  const connectTimeout = options.queryTimeoutMs ? { connectionTimeoutMillis: options.queryTimeoutMs } : {};
  const log = options.logger ? { log: knexLog(options.logger) } : {};
  if (options.databaseUrl) {
    return {
      config: {
        client: 'pg',
        connection: { connectionString: options.databaseUrl, ...connectTimeout },
        pool: { min: 0, max: options.poolMax ?? 10, afterCreate: guarded(guard) },
        migrations,
        ...timeouts,
        ...log,
      },
      stop: async () => {},
    };
  }
  const embedded = await startEmbeddedDatabase(options.pgliteDir ?? 'memory://', { onUnexpectedExit: options.onEmbeddedExit });
  return {
    config: {
      client: 'pg',
      connection: { ...embedded.connection, ...connectTimeout },
      pool: {
        // Exactly one connection: PGlite is one Postgres backend, and the socket server would
        // interleave the protocol messages of several connections.
        min: 0,
        max: 1,
        // That backend outlives a connection, with its prepared statements and settings: start
        // each connection as a new session would (pg's own cache of statements starts empty).
        afterCreate: guarded(guard, (connection) => connection.query('discard all')),
      },
      migrations,
      ...timeouts,
      ...log,
    },
    stop: () => embedded.close(),
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Knex> {
  const guard: QueryGuard = { timeoutMs: 0 }; // off while migrating: a migration may take long
  const { config, stop } = await databaseConfig(options, guard);
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
  guard.timeoutMs = options.queryTimeoutMs ?? 0;
  return db;
}

/**
 * knex's messages as JSON log lines. Its warnings about lost connections repeat what the caller
 * logs with more context (the failing operation, what happens next): kept at debug.
 */
function knexLog(logger: Logger): Knex.Config['log'] {
  const connectionTrouble = /^(Connection Error|Acquire connection error)/;
  return {
    warn: (message: string) => (connectionTrouble.test(message) ? logger.debug({ source: 'knex' }, message) : logger.warn({ source: 'knex' }, message)),
    error: (message: string) => logger.error({ source: 'knex' }, message),
    deprecate: (message: string) => logger.warn({ source: 'knex' }, message),
    debug: (message: string) => logger.debug({ source: 'knex' }, message),
  };
}

/** The query timeout in force for a database's connections (changed once migrations are done). */
interface QueryGuard {
  timeoutMs: number;
}

type AfterCreate = (connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void) => void;

/** A pool hook that guards each new connection's queries, after an optional first statement. */
function guarded(guard: QueryGuard, first?: (connection: pg.Client) => Promise<unknown>): AfterCreate {
  return (connection, done) => {
    guardQueries(connection, guard);
    (first ? first(connection) : Promise.resolve()).then(
      () => done(null, connection),
      (error: Error) => done(error, connection),
    );
  };
}

/**
 * A query that outlives the timeout closes its connection's socket: every query on it fails at
 * once, and the pool drops it. pg's own `query_timeout` leaves the connection in the pool while
 * the server may still be running the statement: once a stalled database wakes up, that
 * connection could still be inside the transaction the gateway already gave up on, and the next
 * request to borrow it would run in there. A closed socket ends the session: PostgreSQL (and the
 * embedded database's socket server) roll back whatever it left open. A COMMIT caught by the
 * timeout may still have happened; every write the gateway retries is idempotent by reference
 * (settlements, charges), so retrying it is safe.
 */
function guardQueries(connection: pg.Client, guard: QueryGuard): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const expire = () =>
    setTimeout(() => {
      const stream = (connection as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection?.stream;
      stream?.destroy(new QueryTimeoutError(guard.timeoutMs));
    }, guard.timeoutMs);
  // knex passes a callback; the ledger's prepared statements use the promise form.
  (connection as unknown as { query: typeof query }).query = (...args: unknown[]) => {
    if (!guard.timeoutMs) return query(...args);
    const callback = args.at(-1);
    const timer = expire();
    if (typeof callback === 'function') {
      return query(...args.slice(0, -1), (error: Error | null, result: unknown) => {
        clearTimeout(timer);
        (callback as (error: Error | null, result: unknown) => void)(error, result);
      });
    }
    const pending = query(...args) as Promise<unknown>;
    return pending.finally(() => clearTimeout(timer));
  };
}

export function pgliteDirFor(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}
