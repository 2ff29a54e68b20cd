import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from 'envalid';
import { ENV_SCHEMA, type CorsOrigins } from './config/env.ts';
import { egressProxy, type EgressProxy } from './shared/egress-proxy.ts';

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
  keyWarmMs: number;
  dbQueryTimeoutMs: number;
  /** On SIGTERM, how long open requests and streams may run before they are cut (and settled). */
  shutdownGraceSeconds: number;
  /** A request hold whose process has not heartbeated this long is ended by the sweeper. */
  staleReservationSeconds: number;
  /** How often this process heartbeats and checkpoints its holds' progress. */
  heartbeatMs: number;
  /** Keep an incoming x-request-id (a trusted proxy sets it) instead of minting one. */
  trustRequestId: boolean;
  /** Serve the web console's built files at /console/ (CONSOLE). */
  console: boolean;
  /** Origins whose browser pages may call the public API. */
  corsOrigins: CorsOrigins;
  /** Run the hold sweeper's tick (every second) in this process (tests drive it by hand). */
  holdSweeper: boolean;
  /** A second listener serving only GET /metrics, without authentication (undefined: none). */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Proxies whose X-Forwarded-For names the client (Express's `trust proxy`). */
  trustProxy: boolean | number | string;
  /** Where clients reach the gateway, for the banner (PUBLIC_URL). */
  publicUrl: string | undefined;
  /** Requests draw from per-process credit grants (false: every request reserves on its own). */
  grants: boolean;
  /** How often grant charges are posted (one statement for all customers). */
  grantFlushMs: number;
  /** A grant unused this long is given back. */
  grantIdleMs: number;
  /** What a client connection may cost before it is closed (src/http/server.ts, docs/operations.md). */
  connections: {
    /** A request head not complete this long after its first byte (or the connection's opening) closes it. */
    headersTimeoutMs: number;
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeoutMs: number;
    /** A request body with no byte for this long is answered 408 and its connection closed. */
    bodyIdleTimeoutMs: number;
    /** Open connections on the API port beyond this are closed at accept. */
    maxConnections: number;
    /** Responses WebSockets this process keeps open at once, and for how long each. */
    maxWebSockets: number;
    webSocketMaxAgeMs: number;
  };
  /** The forward proxy of provider calls (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); undefined: direct. */
  egressProxy: EgressProxy | undefined;
  /** Run the billing alerts tick (queue and deliver webhooks) in this process. */
  webhooks: boolean;
  /** Internal addresses and subnets webhooks may reach anyway. */
  webhookAllowInternal: string[];
  /** Failed redeem-code attempts allowed per key and per client address in each window. */
  redeemAttempts: { perKey: number; perAddress: number; windowSeconds: number };
}

/** Proxy variables are also read in lower case, as curl and most tools do; upper case wins. */
const LOWER_CASE_ALSO = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'];

/** One line per invalid variable, each naming it; never a stack trace (see src/main.ts). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Reads the environment once against the schema in src/config/env.ts and fails fast on nonsense,
 * naming every bad variable. An empty value counts as unset (`KEY=` lines in env files).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(
    Object.keys(ENV_SCHEMA).flatMap((name) => {
      const value = env[name] || (LOWER_CASE_ALSO.includes(name) ? env[name.toLowerCase()] : undefined);
      return value ? [[name, value]] : [];
    }),
  );
  const problems: string[] = [];
  const clean = cleanEnv(given, ENV_SCHEMA, {
    reporter: ({ errors }) => {
      for (const [name, error] of Object.entries(errors)) if (error) problems.push(`${name} ${error.message}`);
    },
  });
  if (problems.length === 0) {
    // A live process must never look dead: several heartbeats fit in the stale window.
    if (clean.STALE_RESERVATION_SECONDS * 1000 < 3 * clean.HEARTBEAT_MS) {
      problems.push(`STALE_RESERVATION_SECONDS (${clean.STALE_RESERVATION_SECONDS}) must be at least three heartbeats (HEARTBEAT_MS ${clean.HEARTBEAT_MS})`);
    }
    if (clean.METRICS_PORT !== undefined && clean.METRICS_PORT !== 0 && clean.METRICS_PORT === clean.PORT)
      problems.push(`METRICS_PORT must differ from PORT (${clean.PORT})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    host: clean.HOST,
    port: clean.PORT,
    dataDir: path.resolve(clean.DATA_DIR),
    databaseUrl: clean.DATABASE_URL,
    cataloguePath: path.resolve(clean.CATALOGUE_PATH ?? path.join(ROOT_DIR, 'catalogue.sample.yaml')),
    adminToken: clean.ADMIN_TOKEN,
    sandbox: clean.SANDBOX,
    bodyLimitBytes: clean.BODY_LIMIT_BYTES,
    logLevel: clean.LOG_LEVEL,
    apiKeyPrefix: clean.API_KEY_PREFIX,
    validateResponses: clean.VALIDATE_RESPONSES,
    videoPoller: clean.VIDEO_POLLER,
    videoPollIntervalMs: clean.VIDEO_POLL_INTERVAL_MS,
    keyCacheMs: clean.KEY_CACHE_MS,
    keyWarmMs: clean.KEY_WARM_MS,
    dbQueryTimeoutMs: clean.DB_QUERY_TIMEOUT_MS,
    shutdownGraceSeconds: clean.SHUTDOWN_GRACE_SECONDS,
    staleReservationSeconds: clean.STALE_RESERVATION_SECONDS,
    heartbeatMs: clean.HEARTBEAT_MS,
    trustRequestId: clean.TRUST_REQUEST_ID,
    corsOrigins: clean.CORS_ORIGINS,
    console: clean.CONSOLE,
    holdSweeper: clean.HOLD_SWEEPER,
    metricsPort: clean.METRICS_PORT,
    metricsHost: clean.METRICS_HOST ?? clean.HOST,
    publicUrl: clean.PUBLIC_URL,
    trustProxy: clean.TRUST_PROXY,
    grants: clean.GRANTS,
    grantFlushMs: clean.GRANT_FLUSH_MS,
    grantIdleMs: clean.GRANT_IDLE_MS,
    connections: {
      headersTimeoutMs: clean.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: clean.HTTP_KEEPALIVE_TIMEOUT_MS,
      bodyIdleTimeoutMs: clean.HTTP_BODY_IDLE_TIMEOUT_MS,
      maxConnections: clean.MAX_CONNECTIONS,
      maxWebSockets: clean.WEBSOCKET_MAX_CONNECTIONS,
      webSocketMaxAgeMs: clean.WEBSOCKET_MAX_AGE_SECONDS * 1000,
    },
    egressProxy: egressProxy({ httpProxy: clean.HTTP_PROXY, httpsProxy: clean.HTTPS_PROXY, noProxy: clean.NO_PROXY }),
    webhooks: clean.WEBHOOKS,
    webhookAllowInternal: clean.WEBHOOK_ALLOW_INTERNAL,
    redeemAttempts: {
      perKey: clean.REDEEM_ATTEMPTS_PER_KEY,
      perAddress: clean.REDEEM_ATTEMPTS_PER_ADDRESS,
      windowSeconds: clean.REDEEM_ATTEMPT_WINDOW_SECONDS,
    },
  };
}
