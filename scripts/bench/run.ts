// npm run bench: the gateway (PostgreSQL, billing and request logs on) beside the direct upstream
// and the peer gateway (Portkey's open-source build, from the npm registry), driven by the same
// load generator in one run, interleaved round by round. Prints a table and writes it to
// scripts/bench/results/latest.{md,json}.
//
//   npm run bench                  full run (about 6 minutes)
//   npm run bench -- --quick       fewer samples, for trying a change
//   npm run bench -- --profile     also writes a V8 CPU profile of the gateway (--cpu-prof)
//   npm run bench -- --no-peer     skip the peer
//
// PostgreSQL: BENCH_DATABASE_URL or DATABASE_URL names a server (a database `<name>_bench` is
// created beside it and dropped first); otherwise scripts/postgres-up.sh starts the local one.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import knexPkg from 'knex';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import { closedLoop, concurrentStreams, makePool, messageBody, percentile, sequential, streamOnce, type RequestSample, type StreamSample, type Target } from './load.ts';
import { measureIdleTick } from './video-tick.ts';
import { renderMarkdown, type BenchResults } from './report.ts';

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
const PEER = !args.has('--no-peer');
// --only=latency,throughput,stream,memory,video runs just those phases (for profiling a change).
const ONLY = [...args].find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const runs = (phase: string) => !ONLY || ONLY.includes(phase);
const PEER_PACKAGE = '@portkey-ai/gateway@1.15.2';
const RESULTS_DIR = path.join(ROOT_DIR, 'scripts/bench/results');

const plan = QUICK
  ? { warmup: 200, latencyRounds: 3, latencyPerRound: 200, throughputRounds: 2, throughputMs: 3000, streamRounds: 2, streamsPerRound: 3, wideRounds: 2, openStreams: 1000, videoTasks: 2000 }
  : { warmup: 500, latencyRounds: 5, latencyPerRound: 500, throughputRounds: 3, throughputMs: 5000, streamRounds: 3, streamsPerRound: 8, wideRounds: 3, openStreams: 1000, videoTasks: 10_000 };
if (!runs('latency')) Object.assign(plan, { warmup: 0, latencyRounds: 0 });
if (!runs('throughput')) Object.assign(plan, { throughputRounds: 0 });
if (!runs('stream')) Object.assign(plan, { streamRounds: 0, wideRounds: 0 });
if (!runs('memory')) Object.assign(plan, { openStreams: 0 });
if (!runs('video')) Object.assign(plan, { videoTasks: 0 });

const UPSTREAM_KEY = 'sk-bench-upstream-credential';
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
// Ctrl-C, SIGTERM or the end of the run stop the upstream, the gateway and the peer with their own
// children (each is a process group); nothing is left holding a port.
const children = createChildGroup();
stopOnSignals(children, log);

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
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function spawnChild(command: string, argv: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string }): ChildProcess {
  const out = fs.openSync(options.logFile, 'w');
  return children.spawn(command, argv, { cwd: options.cwd ?? ROOT_DIR, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', out] });
}

async function benchDatabase(): Promise<{ url: string; version: string }> {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || execFileSync('bash', [path.join(ROOT_DIR, 'scripts/postgres-up.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'gateway'}_bench`;
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

async function startUpstream(workDir: string): Promise<{ anthropic: string; ark: string; pid: number }> {
  const child = spawnChild(process.execPath, ['--import', 'tsx', 'scripts/bench/upstream.ts'], { logFile: path.join(workDir, 'upstream.log') });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`upstream exited (${code}); see ${workDir}/upstream.log`)));
  });
  return { ...(JSON.parse(line) as { anthropic: string; ark: string }), pid: child.pid! };
}

function writeCatalogue(workDir: string, upstream: { anthropic: string; ark: string }): string {
  const file = path.join(workDir, 'catalogue.yaml');
  fs.writeFileSync(
    file,
    `service_name: gateway-bench
currency: USD
providers:
  - {id: bench-anthropic, protocol: anthropic, base_url: "${upstream.anthropic}", credential_env: BENCH_UPSTREAM_KEY, timeouts: {connect_ms: 5000, first_byte_ms: 120000, idle_ms: 120000}}
  - {id: bench-ark, protocol: ark-video, base_url: "${upstream.ark}", credential_env: BENCH_UPSTREAM_KEY}
models:
  - id: bench/claude
    group: messages
    routes: [{provider: bench-anthropic, upstream_model: claude-bench}]
    context_window: 200000
    max_output_tokens: 64000
    price: {input_per_mtok: "3.00", output_per_mtok: "15.00", cache_read_per_mtok: "0.30", cache_write_per_mtok: "3.75"}
  - id: bench/video
    group: video
    routes: [{provider: bench-ark, upstream_model: seedance-bench}]
    video: {seconds: [5, 10], cancellable: true, inline_base64: false, content_types: [text]}
    price: {per_second: {720p: "0.10"}}
`,
  );
  return file;
}

interface Gateway {
  origin: string;
  pid: number;
  key: string;
  customerId: string;
  admin: (method: string, pathname: string, body?: unknown) => Promise<{ status: number; body: any }>;
}

async function startGatewayProcess(workDir: string, databaseUrl: string, cataloguePath: string): Promise<Gateway> {
  const port = await freePort();
  const adminToken = 'adm_bench_token';
  // What `npm start` runs: the build in dist/, not tsx (whose loader threads cost ~90 MB of RSS).
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  const node = [...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.join(workDir, 'profile')}`] : []), 'dist/src/main.js'];
  const child = spawnChild(process.execPath, node, {
    logFile: path.join(workDir, 'gateway.stderr.log'),
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      CATALOGUE_PATH: cataloguePath,
      ADMIN_TOKEN: adminToken,
      SANDBOX: 'false',
      LOG_LEVEL: 'info',
      DATA_DIR: path.join(workDir, 'gateway-data'),
      BENCH_UPSTREAM_KEY: UPSTREAM_KEY,
      // Tasks are made due by the bench itself (see the video phase), not by the clock.
      VIDEO_POLL_INTERVAL_MS: '3600000',
    },
  });
  // Request log lines go to a file, as they would to a collector.
  child.stdout!.pipe(fs.createWriteStream(path.join(workDir, 'gateway.log')));
  if (!(await waitForPort(port, 60_000, child))) throw new Error(`the gateway did not start; see ${workDir}/gateway.stderr.log`);
  const origin = `http://127.0.0.1:${port}`;
  const admin: Gateway['admin'] = async (method, pathname, body) => {
    const res = await fetch(origin + pathname, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const customer = await admin('POST', '/admin/v1/customers', { name: 'Bench customer' });
  const key = await admin('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, {});
  const credit = await admin('POST', `/admin/v1/customers/${customer.body.id}/credits`, { amount: '1000000', reference: 'bench' });
  if (key.status !== 201 || credit.status !== 201) throw new Error(`gateway setup failed: ${JSON.stringify([key.body, credit.body])}`);
  return { origin, pid: child.pid!, key: key.body.key, customerId: customer.body.id, admin };
}

async function startPeer(workDir: string): Promise<{ origin: string; version: string; pid: number } | { unavailable: string }> {
  const port = await freePort();
  const dir = path.join(workDir, 'peer');
  fs.mkdirSync(dir, { recursive: true });
  const child = spawnChild('npx', ['-y', PEER_PACKAGE, `--port=${port}`, '--headless'], { cwd: dir, logFile: path.join(workDir, 'peer.log') });
  child.stdout!.resume();
  if (!(await waitForPort(port, 240_000, child))) return { unavailable: `${PEER_PACKAGE} did not start (see ${workDir}/peer.log)` };
  return { origin: `http://127.0.0.1:${port}`, version: PEER_PACKAGE, pid: child.pid! };
}

/** User + system CPU time of one process from its /proc stat line (USER_HZ is 100 on Linux). */
function ownCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1000;
}

/** CPU time of a process and its descendants (npx runs the peer as a child). */
function cpuMs(pid: number): number {
  try {
    let total = ownCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      for (const child of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) total += cpuMs(Number(child));
    }
    return total;
  } catch {
    return 0; // gone
  }
}

/** CPU time of every PostgreSQL process on the machine (the gateway's database work). */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.includes('(postgres)')) total += ownCpuMs(stat);
    } catch {
      /* gone */
    }
  }
  return total;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return kb / 1024;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const latencies = (samples: RequestSample[]) => samples.filter((s) => s.ok).map((s) => s.ms);

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  log(`work directory ${workDir}`);
  const database = await benchDatabase();
  log(`PostgreSQL ${database.version}`);
  const upstream = await startUpstream(workDir);
  const gateway = await startGatewayProcess(workDir, database.url, writeCatalogue(workDir, upstream));
  log(`gateway on ${gateway.origin} (pid ${gateway.pid}), upstream ${upstream.anthropic}`);
  const peer = PEER ? await startPeer(workDir) : { unavailable: 'skipped (--no-peer)' };
  log('origin' in peer ? `peer ${peer.version} on ${peer.origin}` : `peer unavailable: ${peer.unavailable}`);

  const version = { 'anthropic-version': '2023-06-01' };
  const targets: Target[] = [
    { name: 'direct', origin: upstream.anthropic, headers: { ...version, 'x-api-key': UPSTREAM_KEY }, model: 'claude-bench' },
    { name: 'gateway', origin: gateway.origin, headers: { ...version, 'x-api-key': gateway.key }, model: 'bench/claude' },
    ...('origin' in peer
      ? [{ name: 'peer', origin: peer.origin, headers: { ...version, 'x-api-key': UPSTREAM_KEY, 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${upstream.anthropic}/v1` }, model: 'claude-bench' }]
      : []),
  ];
  // Whose CPU time a target costs: the direct target's is the upstream's own.
  const pids: Record<string, number> = { direct: upstream.pid, gateway: gateway.pid, ...('origin' in peer ? { peer: peer.pid } : {}) };
  const byName = <T>(make: (t: Target) => T) => Object.fromEntries(targets.map((t) => [t.name, make(t)])) as Record<string, T>;

  // 1. Added latency at concurrency 1, zero-delay upstream.
  log('non-streaming latency at concurrency 1');
  const single = byName((t) => makePool(t, 1));
  const plain = (t: Target) => messageBody(t.model, 'Say hello.');
  for (const t of targets) await sequential(single[t.name]!, t, plain(t), plan.warmup);
  const c1 = byName<RequestSample[]>(() => []);
  for (let round = 0; round < plan.latencyRounds; round++) {
    for (const t of targets) c1[t.name]!.push(...(await sequential(single[t.name]!, t, plain(t), plan.latencyPerRound)));
  }

  // 2. Throughput at concurrency 50 with a 20 ms upstream.
  log('throughput at concurrency 50, upstream 20 ms');
  const wide = byName((t) => makePool(t, 50));
  const slow = (t: Target) => messageBody(t.model, 'Say hello. [[sim first_byte_ms=20]]');
  if (plan.throughputRounds) for (const t of targets) await closedLoop(wide[t.name]!, t, slow(t), 50, 1000);
  const c50 = byName(() => ({ samples: [] as RequestSample[], elapsedMs: 0, cpuMs: 0, dbCpuMs: 0 }));
  for (let round = 0; round < plan.throughputRounds; round++) {
    for (const t of targets) {
      const cpuBefore = cpuMs(pids[t.name]!);
      const dbBefore = postgresCpuMs();
      const run = await closedLoop(wide[t.name]!, t, slow(t), 50, plan.throughputMs);
      c50[t.name]!.cpuMs += cpuMs(pids[t.name]!) - cpuBefore;
      c50[t.name]!.dbCpuMs += postgresCpuMs() - dbBefore;
      c50[t.name]!.samples.push(...run.samples);
      c50[t.name]!.elapsedMs += run.elapsedMs;
    }
  }

  // 3. Streaming: 64 content deltas paced at 20 ms, one stream at a time and 100 at once.
  log('streaming at 1 and 100 concurrent streams');
  const paced = (t: Target) => messageBody(t.model, 'Tell a story. [[sim deltas=64 gap_ms=20]]', true);
  const s1 = byName<StreamSample[]>(() => []);
  if (plan.streamRounds) for (const t of targets) for (let i = 0; i < 5; i++) await streamOnce(single[t.name]!, t, messageBody(t.model, 'Warm up. [[sim deltas=2]]', true));
  for (let round = 0; round < plan.streamRounds; round++) {
    for (const t of targets) for (let i = 0; i < plan.streamsPerRound; i++) s1[t.name]!.push(await streamOnce(single[t.name]!, t, paced(t)));
  }
  const hundred = byName((t) => makePool(t, 100));
  const s100 = byName<StreamSample[]>(() => []);
  for (let round = 0; round < plan.wideRounds; round++) {
    // A stream lasts 64 x 20 ms; opened 12.8 ms apart, 100 are open together from the last start on.
    for (const t of targets) s100[t.name]!.push(...(await concurrentStreams(hundred[t.name]!, t, paced(t), 100, (64 * 20) / 100)));
  }

  // 4. Memory: the gateway's resident set while 1,000 streams are open at once.
  log(`memory with ${plan.openStreams} open streams`);
  const gatewayTarget = targets.find((t) => t.name === 'gateway')!;
  const thousand = makePool(gatewayTarget, plan.openStreams);
  const rssBefore = rssMb(gateway.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(gateway.pid))), 50);
  const longStreams = await concurrentStreams(thousand, gatewayTarget, messageBody(gatewayTarget.model, 'Tell a long story. [[sim deltas=64 gap_ms=100]]', true), plan.openStreams);
  clearInterval(sampler);

  for (const pool of [...Object.values(single), ...Object.values(wide), ...Object.values(hundred), thousand]) await pool.close();

  // 5. Video poller: tasks in flight on the simulated upstream, then all made due at once.
  if (plan.videoTasks) log(`video poller with ${plan.videoTasks} tasks`);
  const video = await videoPhase(gateway, database.url, plan.videoTasks);

  const results = summarise({ c1, c50, s1, s100, longStreams, rssBefore, rssPeak, video, database, peer });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const name = ONLY ? 'partial' : QUICK ? 'quick' : 'latest';
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderMarkdown(results);
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.md`), markdown);
  process.stdout.write(`\n${markdown}\n`);
  if (PROFILE) log(`CPU profile of the gateway: ${path.join(workDir, 'profile')} (written when the gateway exits)`);
  log(`results: ${path.join(RESULTS_DIR, `${name}.md`)} and .json; logs in ${workDir}`);
}

async function videoPhase(gateway: Gateway, databaseUrl: string, count: number): Promise<BenchResults['video']> {
  const target: Target = { name: 'gateway', origin: gateway.origin, headers: { authorization: `Bearer ${gateway.key}` }, model: 'bench/video' };
  const pool = makePool(target, 50);
  const body = JSON.stringify({ model: 'bench/video', prompt: 'A calm sea. [[sim queued_ms=0 running_ms=0]]', seconds: 5, resolution: '720p' });
  let next = 0;
  let failed = 0;
  const created = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next++ < count) {
        const res = await pool.request({ path: '/v1/videos', method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body });
        await res.body.arrayBuffer();
        if (res.statusCode !== 202) failed++;
      }
    }),
  );
  const createdPerSecond = (count / (performance.now() - created)) * 1000;
  await pool.close();

  const db = knexPkg.knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
  try {
    const live = Number((await db('video_tasks').whereIn('status', ['queued', 'in_progress']).count<{ count: string }[]>('* as count'))[0]!.count);
    const idle = await measureIdleTick(db, QUICK ? 50 : 200);
    // Everything due now: the gateway's own poller (cron tick every second) drains it.
    const started = performance.now();
    await db('video_tasks').whereIn('status', ['queued', 'in_progress']).update({ next_poll_at: db.fn.now() });
    let settled = 0;
    let remaining = live;
    const deadline = Date.now() + 600_000;
    while (remaining > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      remaining = Number((await db('video_tasks').whereIn('status', ['submitting', 'queued', 'in_progress']).count<{ count: string }[]>('* as count'))[0]!.count);
    }
    const elapsedMs = performance.now() - started;
    settled = Number((await db('video_tasks').where('status', 'completed').count<{ count: string }[]>('* as count'))[0]!.count);
    const review = Number((await db('video_tasks').where('status', 'review').count<{ count: string }[]>('* as count'))[0]!.count);
    const wallet = (await gateway.admin('GET', `/admin/v1/customers/${gateway.customerId}/wallet`)).body;
    const reconciliation = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    return {
      tasks: count,
      createFailures: failed,
      createdPerSecond: round2(createdPerSecond),
      liveBeforeDue: live,
      settled,
      review,
      remaining,
      settleSeconds: round2(elapsedMs / 1000),
      settledPerSecond: round2((settled / elapsedMs) * 1000),
      idleTick: idle,
      walletReserved: wallet.reserved ?? null,
      reconciliationOk: reconciliation.ok ?? null,
    };
  } finally {
    await db.destroy();
  }
}

function summarise(input: {
  c1: Record<string, RequestSample[]>;
  c50: Record<string, { samples: RequestSample[]; elapsedMs: number; cpuMs: number; dbCpuMs: number }>;
  s1: Record<string, StreamSample[]>;
  s100: Record<string, StreamSample[]>;
  longStreams: StreamSample[];
  rssBefore: number;
  rssPeak: number;
  video: BenchResults['video'];
  database: { version: string };
  peer: { origin: string; version: string; pid: number } | { unavailable: string };
}): BenchResults {
  const names = Object.keys(input.c1);
  const direct = latencies(input.c1.direct!);
  const latency = Object.fromEntries(
    names.map((name) => {
      const own = latencies(input.c1[name]!);
      return [name, { samples: input.c1[name]!.length, errors: input.c1[name]!.length - own.length, p50: round2(percentile(own, 50)), p99: round2(percentile(own, 99)), addedP50: round2(percentile(own, 50) - percentile(direct, 50)), addedP99: round2(percentile(own, 99) - percentile(direct, 99)) }];
    }),
  );
  const throughput = Object.fromEntries(
    names.map((name) => {
      const { samples, elapsedMs, cpuMs: spent, dbCpuMs } = input.c50[name]!;
      const ok = latencies(samples);
      return [name, { requests: samples.length, cpuMsPerRequest: round2(spent / Math.max(1, samples.length)), dbCpuMsPerRequest: round2(dbCpuMs / Math.max(1, samples.length)), rps: round2((ok.length / elapsedMs) * 1000), p50: round2(percentile(ok, 50)), p99: round2(percentile(ok, 99)), errorRate: samples.length ? round2(((samples.length - ok.length) / samples.length) * 100) / 100 : 0 }];
    }),
  );
  const streaming = (set: Record<string, StreamSample[]>) => {
    const directTtfb = set.direct!.filter((s) => s.ok).map((s) => s.ttfbMs);
    const directGaps = set.direct!.filter((s) => s.ok).flatMap((s) => s.gapsMs);
    return Object.fromEntries(
      names.map((name) => {
        const samples = set[name]!;
        const ok = samples.filter((s) => s.ok && s.deltas === 64);
        const ttfb = ok.map((s) => s.ttfbMs);
        const gaps = ok.flatMap((s) => s.gapsMs);
        const firstError = samples.find((s) => !s.ok);
        return [
          name,
          {
            streams: samples.length,
            complete: ok.length,
            ttfbP50: round2(percentile(ttfb, 50)),
            ttfbP99: round2(percentile(ttfb, 99)),
            addedTtfbP50: round2(percentile(ttfb, 50) - percentile(directTtfb, 50)),
            addedTtfbP99: round2(percentile(ttfb, 99) - percentile(directTtfb, 99)),
            gapP99: round2(percentile(gaps, 99)),
            addedGapP99: round2(percentile(gaps, 99) - percentile(directGaps, 99)),
            ...(firstError ? { firstFailure: `HTTP ${firstError.status} ${firstError.error ?? ''}`.trim().slice(0, 200) } : {}),
          },
        ];
      }),
    );
  };
  const cpus = os.cpus();
  return {
    generatedAt: new Date().toISOString(),
    mode: QUICK ? 'quick' : 'full',
    machine: {
      cpu: `${cpus.length} x ${cpus[0]?.model ?? 'unknown'}`,
      memoryGiB: round2(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      postgres: input.database.version,
      commit: gitCommit(),
    },
    peer: 'origin' in input.peer ? input.peer.version : `unavailable: ${input.peer.unavailable}`,
    plan,
    latency,
    throughput,
    stream1: streaming(input.s1),
    stream100: streaming(input.s100),
    memory: {
      openStreams: input.longStreams.length,
      complete: input.longStreams.filter((s) => s.ok && s.deltas === 64).length,
      rssBeforeMb: round2(input.rssBefore),
      rssPeakMb: round2(input.rssPeak),
    },
    video: input.video,
  };
}

function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
    return dirty ? `${commit} (with local changes)` : commit;
  } catch {
    return 'unknown';
  }
}

main()
  // Waits for the gateway to drain and exit (it writes its CPU profile on SIGTERM).
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
