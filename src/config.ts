import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Repository root, for the sample catalogue and the generated bundles: the nearest folder above
 * this module with a package.json (src/ under tsx, dist/src/ when built).
 */
export const ROOT_DIR = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

export interface Config {
  host: string;
  port: number;
  /** Where the embedded database and start-up artefacts live. */
  dataDir: string;
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  cataloguePath: string;
  /** Operator bearer token; when absent `npm start` generates one. */
  adminToken: string | undefined;
  /** Start the simulated upstreams on loopback and point the `sandbox` providers at them. */
  sandbox: boolean;
  bodyLimitBytes: number;
  logLevel: string;
  /** Prefix of every customer API key. */
  apiKeyPrefix: string;
  /** Validate every response against the spec (on in tests; 502 on mismatch). */
  validateResponses: boolean;
  /** Run the video poller's cron tick in this process (tests drive it by hand). */
  videoPoller: boolean;
  /** How often a live video task is polled, and the cron tick. */
  videoPollIntervalMs: number;
  /** How long a live API key is remembered after a lookup (0: no cache); see src/customers. */
  keyCacheMs: number;
  /** On SIGTERM, how long open requests and streams may run before they are cut (and settled). */
  shutdownGraceSeconds: number;
  /** A request hold whose process has not heartbeated this long is ended by the sweeper. */
  staleReservationSeconds: number;
  /** How often this process heartbeats and checkpoints its holds' progress. */
  heartbeatMs: number;
  /** Keep an incoming x-request-id (a trusted proxy sets it) instead of minting one. */
  trustRequestId: boolean;
  /** Run the hold sweeper's tick (every second) in this process (tests drive it by hand). */
  holdSweeper: boolean;
  /** Requests draw from per-process credit grants (false: every request reserves on its own). */
  grants: boolean;
  /** How often grant charges are posted (one statement for all customers). */
  grantFlushMs: number;
  /** A grant unused this long is given back. */
  grantIdleMs: number;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** Reads the environment once, fails fast on nonsense. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const prefix = env.API_KEY_PREFIX || 'sk-gw-';
  if (!/^[A-Za-z0-9_-]{2,16}$/.test(prefix)) throw new ConfigError('API_KEY_PREFIX must be 2-16 characters of [A-Za-z0-9_-]');
  const staleSeconds = integer(env, 'STALE_RESERVATION_SECONDS', 600, 1, 7 * 86_400);
  const heartbeatMs = integer(env, 'HEARTBEAT_MS', 5000, 50, 300_000);
  // A live process must never look dead: several heartbeats fit in the stale window.
  if (staleSeconds * 1000 < 3 * heartbeatMs) throw new ConfigError(`STALE_RESERVATION_SECONDS (${staleSeconds}) must be at least three heartbeats (HEARTBEAT_MS ${heartbeatMs})`);
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    cataloguePath: path.resolve(env.CATALOGUE_PATH || path.join(ROOT_DIR, 'catalogue.sample.yaml')),
    adminToken: env.ADMIN_TOKEN || undefined,
    sandbox: flag(env, 'SANDBOX', true),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || 'info',
    apiKeyPrefix: prefix,
    validateResponses: flag(env, 'VALIDATE_RESPONSES', false),
    videoPoller: flag(env, 'VIDEO_POLLER', true),
    videoPollIntervalMs: integer(env, 'VIDEO_POLL_INTERVAL_MS', 5000, 100, 3_600_000),
    keyCacheMs: integer(env, 'KEY_CACHE_MS', 5000, 0, 60_000),
    shutdownGraceSeconds: integer(env, 'SHUTDOWN_GRACE_SECONDS', 30, 0, 3600),
    staleReservationSeconds: staleSeconds,
    heartbeatMs,
    trustRequestId: flag(env, 'TRUST_REQUEST_ID', false),
    holdSweeper: flag(env, 'HOLD_SWEEPER', true),
    grants: flag(env, 'GRANTS', true),
    grantFlushMs: integer(env, 'GRANT_FLUSH_MS', 10, 1, 10_000),
    grantIdleMs: integer(env, 'GRANT_IDLE_MS', 10_000, 100, 3_600_000),
  };
}
