// npm run bench:instructions: machine instructions per proxied request, the gateway's beside the
// bare Node proxy's (scripts/bench/bare-proxy.mjs), each counted by valgrind's callgrind over a
// fixed number of requests at c=50 against the 20 ms simulated upstream. Unlike CPU time, the count
// barely moves when other work shares the machine, so two commits can be compared on a busy one:
// `--root=<checkout>` (repeatable) measures the gateway built in another checkout beside this one's.
//
//   npm run bench:instructions -- [--db=pg|embedded] [--api=messages|chat] [--requests=1000]
//                                 [--warmup=1500] [--idle-ms=10000] [--root=DIR ...] [--no-bare] [--no-build] [--keep]
//
// Each process runs under callgrind with instrumentation off until it is warmed up; the count covers
// exactly the measured requests and whatever the process's timers did meanwhile. Under valgrind a
// process runs 20-50 times slower, so those timers (batch flushes, heartbeats) fire many times more
// per request than at full speed: their rate with no request is counted first (--idle-ms) and the
// figures are given with and without it. Flushes also batch fewer requests each, so the database
// statements' share is larger than at full speed: compare counts between commits, and read the
// ratio to the bare proxy from `npm run bench` (CPU time). A run takes minutes. On a machine so
// loaded that 1,000 requests take minutes, those timers are most of the count and their subtraction
// moves by as much as a change measured (2026-11-27: 8-19 M instructions a second with no request,
// runs of one build 1.0-2.1 M per request apart); so do V8's optimizing compiler (0.4-2.4 M per
// request, left out in `perRequestLessIdleAndCompiler`) and major GCs (`gcPerRequest`).
// PostgreSQL as for `npm run bench` (BENCH_DATABASE_URL or DATABASE_URL); a database per gateway.
// Needs valgrind (apt-get install valgrind). Prints one JSON line per target. `--keep` leaves each
// counted window's callgrind files in <work directory>/kept (callgrind_annotate shows where it went).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import { fixedCount, makePool, requestBody, type Api, type Target } from './load.ts';
import { benchDatabase, createProcesses, writeCatalogue } from './processes.ts';
import { BARE_PROXY, targetsFor } from './targets.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const database = option('db', 'pg') === 'embedded' ? 'embedded' : 'postgres';
const api = option('api', 'messages') as Api;
const requests = Number(option('requests', '1000'));
const warmup = Number(option('warmup', '1500'));
const idleMs = Number(option('idle-ms', '10000'));
const roots = [ROOT_DIR, ...args.filter((a) => a.startsWith('--root=')).map((a) => path.resolve(a.slice('--root='.length)))];
const CONCURRENCY = 50;

const children = createChildGroup();
const log = (m: string) => process.stderr.write(`[instructions] ${new Date().toISOString().slice(11, 19)} ${m}\n`);
stopOnSignals(children, log);

interface Counted {
  target: Target;
  pid: number;
  /** valgrind names its control pipes after $HOST, which the gateway's environment sets: callgrind_control must see the same. */
  host: string | undefined;
  root?: string;
}

const callgrind = (workDir: string, name: string) => ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${path.join(workDir, `callgrind.${name}.%p`)}`];

/** Instructions executed by the process while `run` runs: instrumentation on, counters zeroed, dumped after. */
/**
 * Of a dump's instructions, those of V8's optimizing compiler (TurboFan) and of its garbage
 * collector, by function name. Both come in lumps (a function optimized again, a major GC) that
 * one window of 1,000 requests may or may not hold: a count without the compiler compares two
 * builds more steadily; the collector's share is real cost per request, only uneven.
 */
function shares(file: string): { compiler: number; gc: number } {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  let compiler = 0;
  let gc = 0;
  for (const line of text.split('\n')) {
    const row = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!row || row[2]!.includes('PROGRAM TOTALS')) continue;
    const n = Number(row[1]!.replaceAll(',', ''));
    if (/v8::internal::compiler::/.test(row[2]!)) compiler += n;
    else if (/Scaveng|Marking|MarkCompact|Sweep|Evacuat|v8::internal::Heap::|heap::base|ConcurrentMarking|IterateAndScavenge|BodyDescriptor/.test(row[2]!)) gc += n;
  }
  return { compiler, gc };
}

async function count({ pid, host }: Counted, workDir: string, run: () => Promise<unknown>): Promise<{ total: number; compiler: number; gc: number }> {
  const env = { ...process.env, HOST: host };
  if (host === undefined) delete env.HOST;
  const control = (...argv: string[]) => execFileSync('callgrind_control', [...argv, String(pid)], { encoding: 'utf8', env });
  control('-i', 'on');
  control('-z');
  await run();
  control('-d');
  control('-i', 'off');
  const dumps = fs.readdirSync(workDir).filter((f) => f.startsWith('callgrind.') && f.includes(`.${pid}`));
  const last = path.join(workDir, dumps.sort().at(-1)!);
  const totals = /^(?:totals|summary): (\d+)/m.exec(fs.readFileSync(last, 'utf8'));
  if (!totals) throw new Error(`no totals in ${dumps.at(-1)}`);
  const { compiler, gc } = shares(last);
  const keptDir = path.join(workDir, 'kept');
  if (args.includes('--keep')) fs.mkdirSync(keptDir, { recursive: true });
  for (const dump of dumps) {
    if (args.includes('--keep')) fs.renameSync(path.join(workDir, dump), path.join(keptDir, `${Date.now()}.${dump}`));
    else fs.rmSync(path.join(workDir, dump));
  }
  return { total: Number(totals[1]), compiler, gc };
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-instructions-'));
  for (const root of args.includes('--no-build') ? [] : roots) execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const processes = createProcesses(children, workDir);
  const upstream = await processes.startUpstream();
  const cataloguePath = writeCatalogue(workDir, upstream);
  log(`starting ${args.includes('--no-bare') ? '' : 'the bare proxy and '}${roots.length} gateway(s) (${database}) under callgrind; ${workDir}`);
  const counted: Counted[] = [];
  if (!args.includes('--no-bare')) {
    const bare = await processes.startBareProxy(api === 'messages' ? upstream.anthropic : new URL(upstream.chat).origin, 'bare-proxy', callgrind(workDir, 'bare'));
    counted.push({ target: targetsFor(api, upstream, undefined, undefined, { [api]: bare }).find((t) => t.name === BARE_PROXY)!, pid: bare.pid, host: process.env.HOST });
  }
  const gateways = await Promise.all(
    roots.map(async (root, i) => {
      const postgres = database === 'postgres' ? await benchDatabase(`instructions_${i}`) : undefined;
      return processes.startGateway({
        root,
        database,
        databaseUrl: postgres?.url,
        dataDir: fs.mkdtempSync(path.join(workDir, 'data-')),
        cataloguePath,
        logName: `gateway-${i}`,
        wrapper: callgrind(workDir, `gateway-${i}`),
        // Many times slower under valgrind: a query's default deadline would refuse requests (503).
        env: { DB_QUERY_TIMEOUT_MS: '600000' },
        startTimeoutMs: 30 * 60_000,
      });
    }),
  );
  gateways.forEach((gateway, i) => {
    const target = targetsFor(api, upstream, gateway, undefined).find((t) => t.name === 'gateway')!;
    counted.push({ target: { ...target, name: roots.length > 1 ? `gateway ${path.basename(roots[i]!)}` : 'gateway' }, pid: gateway.pid, host: '127.0.0.1', root: roots[i] });
  });
  const bareCount = counted[0]!.target.name === BARE_PROXY ? await measure(counted[0]!, workDir) : undefined;
  for (const c of counted.slice(bareCount ? 1 : 0)) {
    const result = await measure(c, workDir);
    const ratio = bareCount ? { ratio: Math.round((result.perRequestLessIdle / bareCount.perRequestLessIdle) * 100) / 100 } : {};
    process.stdout.write(`${JSON.stringify({ target: c.target.name, root: c.root, database, api, requests, ...result, ...ratio })}\n`);
  }
  if (bareCount) process.stdout.write(`${JSON.stringify({ target: BARE_PROXY, database, api, requests, ...bareCount })}\n`);
  log(`logs in ${workDir}`);
}

async function measure(c: Counted, workDir: string) {
  const pool = makePool(c.target, CONCURRENCY);
  const body = requestBody(c.target, 'Say hello. [[sim first_byte_ms=20]]');
  try {
    log(`${c.target.name}: warming up with ${warmup} requests`);
    await fixedCount(pool, c.target, body, CONCURRENCY, warmup);
    // What the process does with no request (its timers: flushes, heartbeats, the poller), counted
    // once the warm-up has settled, to subtract from the measured window in proportion to its length.
    await new Promise((r) => setTimeout(r, 5000));
    const idle = idleMs > 0 ? (await count(c, workDir, () => new Promise((r) => setTimeout(r, idleMs)))).total : 0;
    let failed = 0;
    log(`${c.target.name}: counting ${requests} requests`);
    const started = Date.now();
    const { total, compiler, gc } = await count(c, workDir, async () => {
      failed = (await fixedCount(pool, c.target, body, CONCURRENCY, requests)).filter((s) => !s.ok).length;
    });
    const seconds = (Date.now() - started) / 1000;
    const idlePerSecond = idleMs > 0 ? (idle / idleMs) * 1000 : 0;
    const lessIdle = total - idlePerSecond * seconds;
    return {
      perRequest: Math.round(total / requests),
      perRequestLessIdle: Math.round(lessIdle / requests),
      perRequestLessIdleAndCompiler: Math.round((lessIdle - compiler) / requests),
      compilerPerRequest: Math.round(compiler / requests),
      gcPerRequest: Math.round(gc / requests),
      idlePerSecond: Math.round(idlePerSecond),
      seconds: Math.round(seconds),
      failed,
    };
  } finally {
    await pool.close();
  }
}

main()
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
