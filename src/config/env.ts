// Every environment variable the gateway reads, in one table: how it is parsed, its default and
// what it means. loadConfig() validates against it, the table in docs/configuration.md is rendered
// from it (test/unit/config/env.test.ts fails when the two differ), and nothing else in src/
// reads process.env for settings (provider credentials are named by the catalogue instead).
import { str } from 'envalid';
import {
  LOG_LEVELS,
  addressList,
  adminToken,
  corsOrigins,
  flag,
  integer,
  keyPrefix,
  listenHost,
  logLevel,
  noProxy,
  postgresUrl,
  proxyUrl,
  publicUrl,
  trustProxy,
} from './validators.ts';

export { LOG_LEVELS, type CorsOrigins } from './validators.ts';

/** Values that must never be echoed back in an error (they are, or contain, secrets). */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set(['DATABASE_URL', 'ADMIN_TOKEN', 'HTTPS_PROXY', 'HTTP_PROXY']);

export const ENV_SCHEMA = {
  PORT: integer(0, 65535)({ default: 8080, desc: 'Port of the HTTP API (0: any free port).' }),
  HOST: listenHost({ default: '127.0.0.1', desc: 'Address the HTTP API listens on; `0.0.0.0` in a container.' }),
  DATA_DIR: str({
    default: './data',
    desc: "Embedded database (`pglite/`), generated admin token, demo credentials, the settlement outbox and the sandbox providers' tasks (`sandbox/`, so their videos can be downloaded after a restart). Must be writable; keep it on a volume.",
  }),
  DATABASE_URL: postgresUrl({
    default: undefined,
    desc: 'PostgreSQL connection string (`postgres://user:password@host:5432/db`); unset: the embedded PGlite database in `DATA_DIR`.',
  }),
  DB_QUERY_TIMEOUT_MS: integer(
    0,
    600_000,
  )({
    default: 10_000,
    desc: 'A database query, connection attempt or wait for a pooled connection that takes longer fails, and the request gets a 503 (`0`: wait forever). Migrations are exempt. Bounds how long requests hang on a stalled database.',
  }),
  CATALOGUE_PATH: str({ default: undefined, desc: 'Providers, models, routes and prices (YAML); hot-reloaded. Must exist and be valid at start.' }),
  ADMIN_TOKEN: adminToken({
    default: undefined,
    desc: 'Operator bearer token (12+ characters). Unset: one is generated into `DATA_DIR/admin-token`. Set it when replicas share a database.',
  }),
  SANDBOX: flag({ default: true, desc: 'Start the simulated upstreams on loopback and serve the `sandbox/...` models. Set `false` in production.' }),
  BODY_LIMIT_BYTES: integer(
    1024,
    512 * 1024 * 1024,
  )({ default: 32 * 1024 * 1024, desc: "Larger request bodies get a 413 (default 32 MiB, Anthropic's limit)." }),
  API_KEY_PREFIX: keyPrefix({ default: 'sk-gw-', desc: 'Prefix of customer API keys.' }),
  LOG_LEVEL: logLevel({
    default: 'info',
    desc: `pino level (${LOG_LEVELS.join(', ')}); JSON lines on stdout, one access line per request at \`info\` (probes and scrapes at \`debug\`).`,
  }),
  VALIDATE_RESPONSES: flag({ default: false, desc: 'Check every JSON response against the spec (tests turn it on; a mismatch becomes a 502).' }),
  VIDEO_POLLER: flag({ default: true, desc: "Run the video poller's tick (every second) in this process; any number of replicas may." }),
  VIDEO_POLL_INTERVAL_MS: integer(
    100,
    3_600_000,
  )({ default: 5000, desc: 'How often a live video task is polled (errors back off exponentially up to 5 min).' }),
  KEY_CACHE_MS: integer(
    0,
    60_000,
  )({
    default: 5000,
    desc: 'How long a live API key is remembered after a lookup (`0`: every request asks the database). A change to a key or customer made through another replica arrives by a PostgreSQL notification within a second; this bounds it when a notification is lost.',
  }),
  KEY_WARM_MS: integer(
    0,
    3_600_000,
  )({
    default: 60_000,
    desc: 'Keys used within this time are re-read in the background every `KEY_CACHE_MS / 2` (one query for all), so the first request after a pause does not wait for a lookup; `0`: off.',
  }),
  SHUTDOWN_GRACE_SECONDS: integer(
    0,
    3600,
  )({ default: 30, desc: 'On SIGTERM, how long open requests and streams may run before they are cut and settled. Give the container a longer stop timeout.' }),
  STALE_RESERVATION_SECONDS: integer(
    1,
    7 * 86_400,
  )({
    default: 600,
    desc: 'A request hold whose process has not heartbeated this long is ended by the sweeper (at least three heartbeats); a process whose heartbeat has not landed for half of it opens no holds (503) until it does.',
  }),
  HEARTBEAT_MS: integer(50, 300_000)({ default: 5000, desc: "How often this process heartbeats and checkpoints its holds' progress." }),
  HOLD_SWEEPER: flag({ default: true, desc: "Run the hold sweeper's tick (every second) in this process." }),
  GRANTS: flag({
    default: true,
    desc: "Requests draw their hold from this process's credit grant for the customer (a durable hold on part of the balance), so the request path makes no database round trip; `false`: every request reserves on its own.",
  }),
  GRANT_FLUSH_MS: integer(
    1,
    10_000,
  )({
    default: 50,
    desc: "How often charges drawn from grants are posted (one statement for all customers); a crash loses at most this window's charges, never the customer's money.",
  }),
  GRANT_IDLE_MS: integer(
    100,
    3_600_000,
  )({
    default: 30_000,
    desc: 'A grant unused this long is given back to the available balance (a customer pausing less than this keeps it: no statement on its next request).',
  }),
  HTTP_HEADERS_TIMEOUT_MS: integer(
    100,
    600_000,
  )({
    default: 30_000,
    desc: 'A request line and headers not complete this long after their first byte (or after the connection opened, when nothing came) close the connection: with a 408 when part of a head came, silently when nothing did. Bounds idle and slow-header (Slowloris) connections.',
  }),
  HTTP_KEEPALIVE_TIMEOUT_MS: integer(
    100,
    3_600_000,
  )({
    default: 65_000,
    desc: 'An idle keep-alive connection (its last response sent, no new request begun) is closed after this long. Keep it above the idle timeout of a load balancer in front (60 s on AWS ALB).',
  }),
  HTTP_BODY_IDLE_TIMEOUT_MS: integer(
    100,
    600_000,
  )({
    default: 30_000,
    desc: "A request body that stops arriving (no byte for this long) is answered 408 in the endpoint's error shape and its connection closed; nothing is charged. A slow body that keeps moving is not cut. A body answered before it was read (a 401) has this long to finish arriving.",
  }),
  MAX_CONNECTIONS: integer(
    1,
    1_000_000,
  )({
    default: 10_000,
    desc: 'Open client connections on the API port beyond this are closed as soon as they are accepted (`gateway_http_connections_refused_total`). Keep it under half the process file-descriptor limit: a proxied request also holds an upstream socket.',
  }),
  WEBSOCKET_MAX_CONNECTIONS: integer(
    1,
    1_000_000,
  )({
    default: 1_000,
    desc: 'Open Responses WebSockets (`GET /v1/responses` upgraded, Codex) this process takes; an upgrade beyond them is answered 503 before it completes (Codex then uses HTTP). Each connection remembers its most recent `store: false` response, up to `BODY_LIMIT_BYTES` of it.',
  }),
  WEBSOCKET_MAX_AGE_SECONDS: integer(
    1,
    86_400,
  )({
    default: 3_600,
    desc: "A Responses WebSocket is closed (code 1001) this long after it opened, after its turn in flight, as OpenAI's own closes after 60 minutes; clients open a new one.",
  }),
  CORS_ORIGINS: corsOrigins({
    default: new Set<string>(),
    desc: 'Browser pages of these origins may call the public API (CORS): origins separated by commas (`https://app.example.com`), or `*` for any page. Keys travel in headers, so credentials are never allowed; `/admin` and `/metrics` never answer cross-origin.',
  }),
  CONSOLE: flag({
    default: true,
    desc: 'Serve the web console (operators sign in with the admin token, customers with an API key) at `/console/`, from the files `npm run build` writes into `dist/console/`; `false`: `/console/` is a 404 like any unknown path. It calls only the public and admin APIs.',
  }),
  TRUST_REQUEST_ID: flag({
    default: false,
    desc: 'Echo an incoming `x-request-id` (set by a trusted proxy) and record it beside the request id the gateway mints (logs); it never keys a hold, a charge or a limit.',
  }),
  METRICS_PORT: integer(
    0,
    65535,
  )({ default: undefined, desc: 'Also serve `GET /metrics` without authentication on this port (unset: only on the main port, with the admin token).' }),
  METRICS_HOST: listenHost({ default: undefined, desc: 'Address of the `METRICS_PORT` listener.' }),
  TRUST_PROXY: trustProxy({
    default: false,
    desc: 'Which proxies in front may name the client address (`X-Forwarded-For`) in the access log: `false`, `true`, a hop count, or addresses and subnets (`loopback, 10.0.0.0/8`), as Express reads them.',
  }),
  PUBLIC_URL: publicUrl({
    default: undefined,
    desc: "Where clients reach this gateway (a load balancer, a container's published port), printed in the start-up banner and its examples; unset: the listening address (`127.0.0.1` for `0.0.0.0`).",
  }),
  HTTPS_PROXY: proxyUrl({
    default: undefined,
    desc: 'Forward proxy (`http://proxy.internal:3128`, credentials in the URL allowed) for calls to `https://` providers and their file URLs; CONNECT tunnels. `https_proxy` is read when this is unset.',
  }),
  HTTP_PROXY: proxyUrl({ default: undefined, desc: 'Forward proxy for calls to `http://` providers. `http_proxy` is read when this is unset.' }),
  NO_PROXY: noProxy({
    default: [],
    desc: 'Hosts reached without the proxy: commas or spaces between entries; `example.com` covers its subdomains, `host:port` one port, `*` everything. Sandbox simulators are never proxied. `no_proxy` is read when this is unset.',
  }),
  WEBHOOKS: flag({
    default: true,
    desc: 'Run the billing alerts tick (every second) in this process: queue low-balance crossings and video terminal states as webhooks, and deliver them (retried with backoff). Any number of replicas may.',
  }),
  WEBHOOK_ALLOW_INTERNAL: addressList({
    default: [],
    desc: 'Internal addresses and subnets webhooks may reach anyway (`10.0.0.0/8`, `127.0.0.1`), separated by commas; by default a webhook URL on a loopback, private or link-local address is refused, as provider-named URLs are.',
  }),
  REDEEM_ATTEMPTS_PER_KEY: integer(
    1,
    1_000_000,
  )({
    default: 10,
    desc: 'Redeem codes an API key may try without success per `REDEEM_ATTEMPT_WINDOW_SECONDS` (`POST /v1/credits/redeem`); past it, 429 until the window ends. Successful redemptions do not count. Counted in the database, so the limit holds across replicas.',
  }),
  REDEEM_ATTEMPTS_PER_ADDRESS: integer(
    1,
    1_000_000,
  )({
    default: 30,
    desc: "The same per client address (an IPv6 client by its /64), whatever key it uses. Behind a load balancer set `TRUST_PROXY`, or every client shares the balancer's address.",
  }),
  REDEEM_ATTEMPT_WINDOW_SECONDS: integer(
    60,
    86_400,
  )({ default: 900, desc: 'The window the redeem attempt limits count in (fixed windows on the database clock).' }),
} as const;

export type EnvName = keyof typeof ENV_SCHEMA;

/** Documented defaults that loadConfig computes rather than the schema fixing them. */
export const DEFAULT_SHOWN: Partial<Record<EnvName, string>> = {
  CATALOGUE_PATH: '`catalogue.sample.yaml` (beside package.json)',
  ADMIN_TOKEN: 'generated',
  METRICS_HOST: 'same as `HOST`',
  CORS_ORIGINS: '`none` (no page may call)',
  NO_PROXY: 'none',
  WEBHOOK_ALLOW_INTERNAL: 'none',
};
