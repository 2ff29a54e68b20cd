// npm run bench: the gateway (billing, request logs and the video poller on) beside the direct
// upstream and the peer gateway (Portkey's open-source build, from the npm registry), driven by
// the same load generator in one run, interleaved round by round; for each database the gateway
// can run on (PostgreSQL, then its embedded database), for Anthropic Messages and OpenAI Chat
// Completions. Prints the tables and writes them to scripts/bench/results/<name>.{md,json}.
//
//   npm run bench                    full run (both databases, both APIs, the peer)
//   npm run bench -- --quick         fewer samples, for trying a change
//   npm run bench -- --profile       also a V8 CPU profile of each gateway (--cpu-prof)
//   npm run bench -- --only=latency,throughput,c200,stream,memory,video
//   npm run bench -- --no-peer --db=pg|embedded|both --api=messages|chat|both
//   npm run bench -- --scale         also the scale phase (PostgreSQL, 10 million request-log rows; --only=scale alone)
//
// PostgreSQL: BENCH_DATABASE_URL or DATABASE_URL names a server (a database `<name>_bench` is
// created beside it and dropped first); otherwise scripts/postgres-up.sh starts the local one.
// The embedded database: a fresh DATA_DIR per run; the gateway starts its database process itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import type { Api } from './load.ts';
import { parseOptions, resultName, type DatabaseKind } from './options.ts';
import { latencyPhase } from './phases/latency.ts';
import { ledgerCheck, scanGatewayLog } from './phases/ledger.ts';
import { memoryPhase } from './phases/memory.ts';
import { scalePhase } from './phases/scale.ts';
import { streamPhase } from './phases/streams.ts';
import { throughputPhase } from './phases/throughput.ts';
import { embeddedVideoPhase, postgresVideoPhase } from './phases/video.ts';
import { benchDatabase, createProcesses, dropBenchDatabase, writeCatalogue, type Gateway, type GatewaySpec, type Peer, type Upstream } from './processes.ts';
import { cpuMs, postgresCpuMeter, rssMb } from './procfs.ts';
import { renderMarkdown } from './report.ts';
import type { ApiResults, BenchResults, DatabaseResults, ScaleResults } from './results.ts';
import { round2 } from './summarise.ts';
import { BARE_PROXY, targetsFor, type BareProxies } from './targets.ts';

const options = parseOptions(process.argv.slice(2));
const { plan } = options;
const RESULTS_DIR = path.join(ROOT_DIR, 'scripts/bench/results');
const log = (message: string) => process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${message}\n`);
// Ctrl-C, SIGTERM or the end of the run stop the upstream, the gateways and the peer with their
// own children (each is a process group); nothing is left holding a port.
const children = createChildGroup();
stopOnSignals(children, log);

interface Shared {
  workDir: string;
  processes: ReturnType<typeof createProcesses>;
  upstream: Upstream;
  peer: Peer | undefined;
  /** The bare Node proxy in front of each API's upstream: the floor of CPU per proxied request. */
  bare: BareProxies;
  cataloguePath: string;
  postgres?: { url: string; version: string };
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  log(`work directory ${workDir}; databases ${options.databases.join(', ')}; APIs ${options.apis.join(', ')}`);
  // What `npm start` runs: the build in dist/, not tsx (whose loader threads cost ~90 MB of RSS).
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  const postgres = options.databases.includes('postgres') ? await benchDatabase() : undefined;
  if (postgres) log(`PostgreSQL ${postgres.version}`);
  const processes = createProcesses(children, workDir);
  const upstream = await processes.startUpstream();
  log(`upstream: messages ${upstream.anthropic}, chat ${upstream.chat}`);
  const peerOrWhy = options.peer ? await processes.startPeer() : { unavailable: 'skipped (--no-peer)' };
  const peer = 'origin' in peerOrWhy ? peerOrWhy : undefined;
  log(peer ? `peer ${peer.version} on ${peer.origin}` : `peer unavailable: ${(peerOrWhy as { unavailable: string }).unavailable}`);
  const bare: BareProxies = {};
  for (const api of options.apis) bare[api] = await processes.startBareProxy(api === 'messages' ? upstream.anthropic : new URL(upstream.chat).origin, `bare-proxy-${api}`);
  const shared: Shared = { workDir, processes, upstream, peer, bare, cataloguePath: writeCatalogue(workDir, upstream), postgres };

  const databases: DatabaseResults[] = [];
  const scaleOnly = options.only?.length === 1 && options.only[0] === 'scale';
  for (const kind of scaleOnly ? [] : options.databases) databases.push(await runDatabase(kind, shared));
  const scale = options.scaleRequests ? await runScale(shared) : undefined;

  const cpus = os.cpus();
  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    mode: options.quick ? 'quick' : 'full',
    machine: { cpu: `${cpus.length} x ${cpus[0]?.model ?? 'unknown'}`, memoryGiB: round2(os.totalmem() / 2 ** 30), os: `${os.type()} ${os.release()}`, node: process.version, postgres: postgres?.version ?? 'not run', commit: gitCommit() },
    peer: peer ? peer.version : `unavailable: ${(peerOrWhy as { unavailable: string }).unavailable}`,
    plan: { ...plan },
    databases,
    ...(scale ? { scale } : {}),
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const name = resultName(options);
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderMarkdown(results);
  fs.writeFileSync(path.join(RESULTS_DIR, `${name}.md`), markdown);
  process.stdout.write(`\n${markdown}\n`);
  if (options.profile) log(`CPU profiles of the gateways: ${workDir}/profile-<database>`);
  log(`results: ${path.join(RESULTS_DIR, `${name}.md`)} and .json; logs in ${workDir}`);
}

async function runDatabase(kind: DatabaseKind, shared: Shared): Promise<DatabaseResults> {
  const { workDir, processes, upstream, peer, bare } = shared;
  const label = kind === 'postgres' ? `PostgreSQL ${shared.postgres!.version}` : `the embedded database (PGlite ${pgliteVersion()}, own process)`;
  const logName = `gateway-${kind}`;
  const spec: GatewaySpec = {
    database: kind,
    databaseUrl: shared.postgres?.url,
    dataDir: fs.mkdtempSync(path.join(workDir, `data-${kind}-`)),
    cataloguePath: shared.cataloguePath,
    logName,
    profileDir: options.profile ? path.join(workDir, `profile-${kind}`) : undefined,
  };
  // What ran when, to place the gateway's stderr warnings and any unexpected exit in the phases.
  const timeline: Array<{ at: number; phase: string }> = [{ at: Date.now(), phase: 'start' }];
  const phaseLog = (phase: string) => (timeline.push({ at: Date.now(), phase }), log(`${kind} / ${phase}`));
  const unexpectedExits: string[] = [];
  const watch = (g: Gateway) => {
    g.child.once('exit', (code, signal) => {
      if (g.stopping) return;
      const what = `gateway pid ${g.pid} exited (${signal ?? `code ${code}`}) during "${timeline.at(-1)!.phase}" at ${new Date().toISOString()}, not stopped by the bench; see ${logName}.stderr.log`;
      unexpectedExits.push(what);
      log(`!!! ${what}`);
    });
    return g;
  };
  let gateway: Gateway = watch(await processes.startGateway(spec));
  log(`--- ${label}: gateway on ${gateway.origin} (pid ${gateway.pid}${gateway.dbPid ? `, database process ${gateway.dbPid}` : ''})`);
  // Whose CPU time a target costs: the direct target's is the upstream's own; the gateway's is its
  // own process, its database's is counted apart.
  const cpuOf = (api: Api): Record<string, () => number> => ({
    direct: () => cpuMs(upstream.pid),
    [BARE_PROXY]: () => cpuMs(bare[api]!.pid),
    gateway: () => cpuMs(gateway.pid, true),
    ...(peer ? { peer: () => cpuMs(peer.pid) } : {}),
  });
  const dbCpu = kind === 'postgres' ? postgresCpuMeter(new URL(shared.postgres!.url).pathname.slice(1)) : () => (gateway.dbPid ? cpuMs(gateway.dbPid, true) : 0);
  const customer = { key: gateway.key, customerId: gateway.customerId };
  const restart = async (env: Record<string, string> = {}) => {
    const started = Date.now();
    await processes.stop(gateway);
    const stopped = Date.now();
    gateway = watch(await processes.startGateway({ ...spec, env, customer }));
    log(`gateway restarted (stop ${((stopped - started) / 1000).toFixed(1)} s, start ${((Date.now() - stopped) / 1000).toFixed(1)} s): pid ${gateway.pid}${gateway.dbPid ? `, database process ${gateway.dbPid}` : ''}`);
    return gateway;
  };

  const apis: Partial<Record<Api, ApiResults>> = {};
  for (const api of options.apis) {
    const ctx = { plan, targets: targetsFor(api, upstream, gateway, peer, bare), cpu: cpuOf(api), dbCpu, log: (m: string) => phaseLog(`${api}: ${m}`) };
    const latency = await latencyPhase(ctx);
    const throughput = await throughputPhase(ctx, 50, plan.throughputRounds, plan.throughputMs);
    const wide = await throughputPhase(ctx, 200, plan.wideRounds, plan.wideMs);
    // The bare proxy is a floor for the non-streaming phases; the streaming ones compare the gateway with direct and the peer.
    apis[api] = { latency, throughput, wide, ...(await streamPhase({ ...ctx, targets: ctx.targets.filter((t) => t.name !== BARE_PROXY) })) };
  }
  // What the load phases left: the heap they grew is not given back to the system.
  const rssAfterLoad = { gatewayMb: round2(rssMb(gateway.pid)), ...(gateway.dbPid ? { databaseMb: round2(rssMb(gateway.dbPid)) } : {}) };
  // Each memory phase on a gateway started afresh (same database and customer).
  for (const api of plan.openStreams ? options.apis : []) {
    await restart();
    const target = targetsFor(api, upstream, gateway, undefined).find((t) => t.name === 'gateway')!;
    const memory = await memoryPhase(gateway, target, plan.openStreams, (m) => phaseLog(`${api}: ${m}`));
    if (memory) apis[api]!.memory = memory;
  }

  let video: DatabaseResults['video'];
  if (kind === 'postgres' && plan.videoTasks) {
    phaseLog(`video poller with ${plan.videoTasks} tasks`);
    video = await postgresVideoPhase(gateway, shared.postgres!.url, plan.videoTasks, options.quick ? 50 : 200);
  } else if (kind === 'embedded' && plan.embeddedVideoTasks) {
    phaseLog(`video poller with ${plan.embeddedVideoTasks} tasks (gateway restarted twice on the same data)`);
    ({ video } = await embeddedVideoPhase(plan.embeddedVideoTasks, restart));
  }

  phaseLog('waiting for the gateway to give its credit grants back (GRANT_IDLE_MS)');
  const ledger = await ledgerCheck(gateway, Date.now());
  log(`${label}: reconciliation ${ledger.reconciliationOk === null ? 'not checked' : ledger.reconciliationOk ? 'ok' : 'NOT ok'}, reserved ${ledger.reserved} (${ledger.waitedSeconds} s after the last request)${ledger.detail ? `; ${ledger.detail}` : ''}`);
  const stopping = Date.now();
  await processes.stop(gateway); // SIGTERM: drains, gives grants back, writes its CPU profile
  log(`gateway stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  const gatewayLog = await scanGatewayLog(path.join(workDir, `${logName}.log`), path.join(workDir, `${logName}.stderr.log`), timeline);
  if (gatewayLog.errors || gatewayLog.warnings) log(`${label}: gateway log has ${gatewayLog.errors} error and ${gatewayLog.warnings} warning lines; first: ${gatewayLog.first}`);
  if (gatewayLog.stderrWarnings) log(`${label}: gateway stderr has ${gatewayLog.stderrWarnings} warning lines (${JSON.stringify(gatewayLog.stderrByPhase)}); first: ${gatewayLog.firstStderr}`);
  return { database: kind, label, apis, rssAfterLoad, ...(video ? { video } : {}), ledger, gatewayLog: { ...gatewayLog, ...(unexpectedExits.length ? { unexpectedExits } : {}) } };
}

/** Two gateways on PostgreSQL, one on an empty database and one on a seeded one, side by side. */
async function runScale(shared: Shared): Promise<ScaleResults> {
  const { workDir, processes, upstream } = shared;
  const sides = { empty: await benchDatabase('scale_empty'), seeded: await benchDatabase('scale') };
  const start = async (name: 'empty' | 'seeded') => {
    const spec: GatewaySpec = { database: 'postgres', databaseUrl: sides[name].url, dataDir: fs.mkdtempSync(path.join(workDir, `data-scale-${name}-`)), cataloguePath: shared.cataloguePath, logName: `gateway-scale-${name}`,
      // The phase runs the request log's upkeep itself, when it measures retention: the gateways' hourly tick would take its lease.
      env: { REQUEST_LOG_UPKEEP: 'false' } };
    return { gateway: await processes.startGateway(spec), url: sides[name].url };
  };
  const gateways = { empty: await start('empty'), seeded: await start('seeded') };
  log(`--- scale: gateways on ${gateways.empty.gateway.origin} (empty database) and ${gateways.seeded.gateway.origin} (seeded: ${options.scaleRequests} request-log rows)`);
  try {
    return await scalePhase(gateways, upstream, { requests: options.scaleRequests, quick: options.quick, log });
  } finally {
    await Promise.all([processes.stop(gateways.empty.gateway), processes.stop(gateways.seeded.gateway)]);
    // Gigabytes: not left behind for the next run to drop.
    await Promise.all([dropBenchDatabase(sides.empty.url), dropBenchDatabase(sides.seeded.url)]);
  }
}

function pgliteVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
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
  // Waits for the gateways to drain and exit (each writes its CPU profile on SIGTERM).
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
