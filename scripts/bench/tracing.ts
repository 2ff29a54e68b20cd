// npm run bench:tracing [-- --baseline=DIR --rounds=N --rate=R]: what OpenTelemetry tracing costs
// the gateway, as CPU time per request at a fixed rate (R requests/s, 120 by default: what every
// variant keeps up with on a busy 2-core machine; at the same rate the work done per second
// whatever the load, timers and batched writes, weighs the same on each request), non-streaming
// /v1/messages against a 20 ms upstream, PostgreSQL,
// side by side: tracing off; on, every trace recorded and exported (OTLP/protobuf, GenAI attributes)
// to a collector that discards them; on but unsampled (OTEL_TRACES_SAMPLER=always_off: the context
// carried, no span recorded); and with --baseline, the gateway of another checkout (a commit
// before tracing, built here; its node_modules must be installed) with nothing set, for the cost of
// the seam itself when off. The gateways run at once, each on its own database, and take the load
// in turn, round after round, the order rotating, so that a machine shared with other work weighs
// on all alike; each round's figure is read against the same round's `off`. Writes
// scripts/bench/results/tracing.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import { fixedRate, makePool, requestBody, type Target } from './load.ts';
import { benchDatabase, createProcesses, writeCatalogue, type Gateway } from './processes.ts';
import { cpuMs } from './procfs.ts';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const BASELINE = option('baseline');
const ROUNDS = Number(option('rounds') ?? 8);
const RATE = Number(option('rate') ?? 120);
const ROUND_MS = 5000;
const CONCURRENCY = 200;
const children = createChildGroup();
const log = (m: string) => console.error(`[tracing] ${new Date().toISOString().slice(11, 19)} ${m}`);
stopOnSignals(children, log);

interface Variant {
  name: string;
  env: Record<string, string>;
  cwd?: string;
}

/** A collector that accepts OTLP/HTTP exports and drops them. */
async function startSink(): Promise<{ url: string; exports: () => number; close(): void }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports, close: () => server.close() };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-tracing-'));
  for (const dir of [ROOT_DIR, ...(BASELINE ? [BASELINE] : [])]) execFileSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const sink = await startSink();
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' };
  const variants: Variant[] = [
    ...(BASELINE ? [{ name: 'baseline, off', env: {}, cwd: path.resolve(BASELINE) }] : []),
    { name: 'off', env: {} },
    { name: 'on', env: traced },
    { name: 'on, unsampled', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_off' } },
  ];
  const processes = createProcesses(children, workDir);
  const upstream = await processes.startUpstream();
  const cataloguePath = writeCatalogue(workDir, upstream);
  const gateways: Gateway[] = [];
  for (const [index, variant] of variants.entries()) {
    const database = await benchDatabase(`bench_tracing${index}`);
    gateways.push(
      await processes.startGateway({
        database: 'postgres',
        databaseUrl: database.url,
        dataDir: fs.mkdtempSync(path.join(workDir, `data-${index}-`)),
        cataloguePath,
        logName: `gateway-${index}`,
        env: variant.env,
        ...(variant.cwd ? { root: variant.cwd } : {}),
      }),
    );
    log(`${variant.name}: gateway pid ${gateways[index]!.pid}`);
  }
  const targets: Target[] = gateways.map((g, i) => ({ name: variants[i]!.name, api: 'messages', origin: g.origin, headers: { 'x-api-key': g.key }, model: 'bench/claude' }));
  const body = requestBody(targets[0]!, 'Say hello. [[sim first_byte_ms=20]]');
  const pools = targets.map((t) => makePool(t, CONCURRENCY));
  for (const [i, t] of targets.entries()) await fixedRate(pools[i]!, t, body, RATE, 3000); // warm up
  const rounds: Array<Array<{ rate: number; cpu: number; errors: number }>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    const figures = new Array<{ rate: number; cpu: number; errors: number }>(targets.length);
    for (let k = 0; k < targets.length; k++) {
      const i = (round + k) % targets.length;
      const before = cpuMs(gateways[i]!.pid);
      const run = await fixedRate(pools[i]!, targets[i]!, body, RATE, ROUND_MS);
      const ok = run.samples.filter((s) => s.ok).length;
      figures[i] = { rate: (ok / run.elapsedMs) * 1000, cpu: (cpuMs(gateways[i]!.pid) - before) / Math.max(ok, 1), errors: run.samples.length - ok };
    }
    rounds.push(figures);
    log(figures.map((f, i) => `${variants[i]!.name} ${f.cpu.toFixed(3)} ms, ${f.rate.toFixed(0)}/s`).join('; '));
  }
  await Promise.all(pools.map((p) => p.close()));
  const off = variants.findIndex((v) => v.name === 'off');
  const lines = [
    '# What tracing costs the gateway (`npm run bench:tracing`)',
    '',
    `${new Date().toISOString()}; ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}; Node ${process.version}; commit ${commitOf(ROOT_DIR)}${BASELINE ? `, baseline ${BASELINE} (commit ${commitOf(BASELINE)})` : ''}.`,
    `Non-streaming \`/v1/messages\` at ${RATE} requests/s (open loop), 20 ms upstream, PostgreSQL; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s per gateway, the order rotating; ${sink.exports()} exports received by the collector.`,
    '',
    '| gateway | requests/s (median) | CPU per request, ms (median; min-max) | CPU per request / `off` in the same round (median; min-max) | errors |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [i, variant] of variants.entries()) {
    const cpu = rounds.map((r) => r[i]!.cpu);
    const ratios = rounds.map((r) => r[i]!.cpu / r[off]!.cpu);
    const range = (values: number[], digits: number) => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
    lines.push(
      `| ${variant.name} | ${median(rounds.map((r) => r[i]!.rate)).toFixed(0)} | ${range(cpu, 3)} | ${range(ratios, 2)} | ${rounds.reduce((n, r) => n + r[i]!.errors, 0)} |`,
    );
  }
  const out = path.join(ROOT_DIR, 'scripts/bench/results/tracing.md');
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
  sink.close();
  log(`written to ${path.relative(ROOT_DIR, out)}; logs in ${workDir}`);
}

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

main()
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
