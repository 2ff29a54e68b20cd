// The processes of a bench run, each in its own process group (scripts/lib/children.ts): the
// simulated upstreams, PostgreSQL's bench database, the gateway (on PostgreSQL or on its embedded
// database) and the peer gateway from the npm registry.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import knexPkg from 'knex';
import { ROOT_DIR } from '../../src/config.ts';
import type { ChildGroup } from '../lib/children.ts';
import type { DatabaseKind } from './options.ts';
import { findChild } from './procfs.ts';

export const PEER_PACKAGE = '@portkey-ai/gateway@1.15.2';
export const UPSTREAM_KEY = 'sk-bench-upstream-credential';
const ADMIN_TOKEN = 'adm_bench_token';

export interface Upstream {
  anthropic: string;
  /** Chat Completions base URL, ending with /v1. */
  chat: string;
  ark: string;
  pid: number;
}

export interface Peer {
  origin: string;
  version: string;
  pid: number;
}

/** The bare Node proxy (bare-proxy.mjs) in front of one upstream origin. */
export interface BareProxy {
  origin: string;
  pid: number;
}

export interface Gateway {
  database: DatabaseKind;
  origin: string;
  pid: number;
  /** The embedded database's own process (a child of the gateway). */
  dbPid?: number;
  child: ChildProcess;
  key: string;
  customerId: string;
  admin: (method: string, pathname: string, body?: unknown) => Promise<{ status: number; body: any }>;
  /** Set when the bench stops it; an exit without it is unexpected (a crash, a signal from elsewhere). */
  stopping?: boolean;
}

export interface GatewaySpec {
  database: DatabaseKind;
  /** PostgreSQL only. */
  databaseUrl?: string;
  dataDir: string;
  cataloguePath: string;
  logName: string;
  profileDir?: string;
  /** The checkout whose build (dist/) runs; this one by default. */
  root?: string;
  /** A command the gateway runs under (valgrind's, for scripts/bench/instructions.ts). */
  wrapper?: string[];
  /** How long the gateway may take to answer /readyz (longer under a wrapper). */
  startTimeoutMs?: number;
  env?: Record<string, string>;
  /** Reuse the customer of an earlier run on the same database (a restart). */
  customer?: { key: string; customerId: string };
}

export function createProcesses(children: ChildGroup, workDir: string) {
  function spawnChild(command: string, argv: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; logFile: string }): ChildProcess {
    const out = fs.openSync(path.join(workDir, options.logFile), 'a'); // a restarted gateway appends
    return children.spawn(command, argv, { cwd: options.cwd ?? ROOT_DIR, env: options.env, stdio: ['ignore', 'pipe', out] });
  }

  async function startUpstream(): Promise<Upstream> {
    const child = spawnChild(process.execPath, ['--import', 'tsx', 'scripts/bench/upstream.ts'], { env: process.env, logFile: 'upstream.log' });
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`upstream exited (${code}); see ${workDir}/upstream.log`)));
    });
    return { ...(JSON.parse(line) as Omit<Upstream, 'pid'>), pid: child.pid! };
  }

  async function startGateway(spec: GatewaySpec): Promise<Gateway> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CATALOGUE_PATH: spec.cataloguePath,
      ADMIN_TOKEN,
      SANDBOX: 'false',
      LOG_LEVEL: 'info',
      DATA_DIR: spec.dataDir,
      BENCH_UPSTREAM_KEY: UPSTREAM_KEY,
      // Tasks are made due by the bench itself (see the video phase), not by the clock.
      VIDEO_POLL_INTERVAL_MS: '3600000',
      ...spec.env,
    };
    // Without DATABASE_URL the gateway runs its embedded database (and starts its process itself).
    if (spec.database === 'postgres') env.DATABASE_URL = spec.databaseUrl;
    else delete env.DATABASE_URL;
    // What `npm start` runs: the build in dist/ (run.ts builds it once), not tsx.
    const node = [...(spec.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${spec.profileDir}`] : []), 'dist/src/main.js'];
    const [command, ...argv] = [...(spec.wrapper ?? []), process.execPath, ...node];
    const child = spawnChild(command!, argv, { env, cwd: spec.root, logFile: `${spec.logName}.stderr.log` });
    // Request log lines go to a file, as they would to a collector.
    child.stdout!.pipe(fs.createWriteStream(path.join(workDir, `${spec.logName}.log`), { flags: 'a' }));
    const origin = `http://127.0.0.1:${port}`;
    if (!(await waitReady(origin, spec.startTimeoutMs ?? 120_000, child))) throw new Error(`the gateway did not start; see ${workDir}/${spec.logName}.stderr.log`);
    const admin: Gateway['admin'] = async (method, pathname, body) => {
      const res = await fetch(origin + pathname, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
    };
    const dbPid = spec.database === 'embedded' ? findChild(child.pid!, 'embedded/server') : undefined;
    if (spec.database === 'embedded' && dbPid === undefined) throw new Error('the embedded database process was not found among the gateway\'s children');
    const customer = spec.customer ?? (await provision(admin));
    return { database: spec.database, origin, pid: child.pid!, dbPid, child, ...customer, admin };
  }

  async function startPeer(): Promise<Peer | { unavailable: string }> {
    const port = await freePort();
    const dir = path.join(workDir, 'peer');
    fs.mkdirSync(dir, { recursive: true });
    const child = spawnChild('npx', ['-y', PEER_PACKAGE, `--port=${port}`, '--headless'], { env: process.env, cwd: dir, logFile: 'peer.log' });
    child.stdout!.resume();
    if (!(await waitForPort(port, 240_000, child))) return { unavailable: `${PEER_PACKAGE} did not start (see ${workDir}/peer.log)` };
    return { origin: `http://127.0.0.1:${port}`, version: PEER_PACKAGE, pid: child.pid! };
  }

  /** scripts/bench/bare-proxy.mjs in front of `upstreamOrigin` (what a Node process costs with nothing of a gateway's). */
  async function startBareProxy(upstreamOrigin: string, name: string, wrapper: string[] = []): Promise<BareProxy> {
    const [command, ...argv] = [...wrapper, process.execPath, path.join(ROOT_DIR, 'scripts/bench/bare-proxy.mjs'), upstreamOrigin];
    const child = spawnChild(command!, argv, { env: process.env, logFile: `${name}.log` });
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`${name} exited (${code}); see ${workDir}/${name}.log`)));
    });
    return { origin: (JSON.parse(line) as { origin: string }).origin, pid: child.pid! };
  }

  const stop = (process: { child: ChildProcess; stopping?: boolean }) => ((process.stopping = true), children.stop(process.child, 60_000));
  return { startUpstream, startGateway, startPeer, startBareProxy, stop };
}

/** A customer with an API key and a large credit, through the operator API. */
async function provision(admin: Gateway['admin']): Promise<{ key: string; customerId: string }> {
  const customer = await admin('POST', '/admin/v1/customers', { name: 'Bench customer' });
  const key = await admin('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, {});
  const credit = await admin('POST', `/admin/v1/customers/${customer.body.id}/credits`, { amount: '1000000', reference: 'bench' });
  if (key.status !== 201 || credit.status !== 201) throw new Error(`gateway setup failed: ${JSON.stringify([customer.body, key.body, credit.body])}`);
  return { key: key.body.key, customerId: customer.body.id };
}

const benchServerUrl = () =>
  process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || execFileSync('bash', [path.join(ROOT_DIR, 'scripts/postgres-up.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;

/** Drops a database benchDatabase made (the scale phase's hold gigabytes). */
export async function dropBenchDatabase(databaseUrl: string): Promise<void> {
  const admin = knexPkg.knex({ client: 'pg', connection: benchServerUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`drop database if exists ${new URL(databaseUrl).pathname.slice(1)} with (force)`);
  } finally {
    await admin.destroy();
  }
}

/** A fresh database `<name>_<suffix>` beside the one BENCH_DATABASE_URL / DATABASE_URL names, or on the local server. */
export async function benchDatabase(suffix = 'bench'): Promise<{ url: string; version: string }> {
  const serverUrl = benchServerUrl();
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'gateway'}_${suffix}`;
  const admin = knexPkg.knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`drop database if exists ${name} with (force)`);
    await admin.raw(`create database ${name}`);
    const { rows } = await admin.raw<{ rows: Array<{ server_version: string }> }>('show server_version');
    url.pathname = `/${name}`;
    return { url: url.toString(), version: rows[0]!.server_version };
  } finally {
    await admin.destroy();
  }
}

export function writeCatalogue(workDir: string, upstream: Upstream): string {
  const file = path.join(workDir, 'catalogue.yaml');
  const timeouts = '{connect_ms: 5000, first_byte_ms: 120000, idle_ms: 120000}';
  const tokens = 'context_window: 200000\n    max_output_tokens: 64000';
  fs.writeFileSync(
    file,
    `service_name: gateway-bench
currency: USD
providers:
  - {id: bench-anthropic, protocol: anthropic, base_url: "${upstream.anthropic}", credential_env: BENCH_UPSTREAM_KEY, timeouts: ${timeouts}}
  - {id: bench-openai-chat, protocol: openai-chat, base_url: "${upstream.chat}", credential_env: BENCH_UPSTREAM_KEY, timeouts: ${timeouts}}
  - {id: bench-ark, protocol: ark-video, base_url: "${upstream.ark}", credential_env: BENCH_UPSTREAM_KEY}
models:
  - id: bench/claude
    group: messages
    routes: [{provider: bench-anthropic, upstream_model: claude-bench}]
    ${tokens}
    price: {input_per_mtok: "3.00", output_per_mtok: "15.00", cache_read_per_mtok: "0.30", cache_write_per_mtok: "3.75"}
  - id: bench/chat
    group: chat
    routes: [{provider: bench-openai-chat, upstream_model: gpt-bench}]
    ${tokens}
    price: {input_per_mtok: "2.50", output_per_mtok: "10.00", cache_read_per_mtok: "1.25"}
  - id: bench/video
    group: video
    routes: [{provider: bench-ark, upstream_model: seedance-bench}]
    video: {seconds: [5, 10], cancellable: true, inline_base64: false, content_types: [text]}
    price: {per_second: {720p: "0.10"}}
`,
  );
  return file;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) return false;
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await sleep(200);
  }
  return false;
}

/** Until GET /readyz answers 200 (the database serves and the catalogue is loaded). */
async function waitReady(origin: string, timeoutMs: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    const ok = await fetch(`${origin}/readyz`).then((r) => (void r.body?.cancel(), r.status === 200), () => false);
    if (ok) return true;
    await sleep(200);
  }
  return false;
}
