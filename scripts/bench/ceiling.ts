// npm run bench:ceiling: what a bare Node reverse proxy (bare-proxy.mjs: no auth, no ledger, no
// log) reaches against the 20 ms simulated upstream at c=50 and c=200, beside the direct upstream,
// in interleaved rounds on this machine. It bounds what any single-process Node gateway can reach
// here, ours included: the issue-15 line "c=200 within 10% of direct" is read against it in
// docs/performance.md. Writes scripts/bench/results/ceiling.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import { closedLoop, makePool, requestBody, type Target } from './load.ts';
import { createProcesses, UPSTREAM_KEY } from './processes.ts';
import { cpuMs } from './procfs.ts';

const ROUNDS = 3;
const ROUND_MS = 5000;
const children = createChildGroup();
const log = (m: string) => console.error(`[ceiling] ${new Date().toISOString().slice(11, 19)} ${m}`);
stopOnSignals(children, log);

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-ceiling-'));
  const processes = createProcesses(children, workDir);
  const upstream = await processes.startUpstream();
  const proxy = await processes.startBareProxy(upstream.anthropic, 'bare-proxy');
  const { origin } = proxy;
  const headers = { 'anthropic-version': '2023-06-01', 'x-api-key': UPSTREAM_KEY };
  const targets: Target[] = [
    { name: 'direct', api: 'messages', origin: upstream.anthropic, headers, model: 'claude-bench' },
    { name: 'bare proxy', api: 'messages', origin, headers, model: 'claude-bench' },
  ];
  const cpu: Record<string, () => number> = { direct: () => cpuMs(upstream.pid), 'bare proxy': () => cpuMs(proxy.pid) };
  const body = requestBody(targets[0]!, 'Say hello. [[sim first_byte_ms=20]]');
  const lines = [
    '# A bare Node proxy on this machine (`npm run bench:ceiling`)',
    '',
    `${new Date().toISOString()}; ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}; Node ${process.version}. Load generator, upstream and proxy share the cores; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s.`,
    '',
    '| 20 ms upstream | direct req/s | bare proxy req/s | bare / direct | bare proxy CPU per request (ms) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const concurrency of [50, 200]) {
    log(`c=${concurrency}`);
    const pools = Object.fromEntries(targets.map((t) => [t.name, makePool(t, concurrency)]));
    const done = Object.fromEntries(targets.map((t) => [t.name, { requests: 0, ms: 0, cpu: 0 }]));
    for (const t of targets) await closedLoop(pools[t.name]!, t, body, concurrency, 1000);
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        const before = cpu[t.name]!();
        const run = await closedLoop(pools[t.name]!, t, body, concurrency, ROUND_MS);
        const into = done[t.name]!;
        into.cpu += cpu[t.name]!() - before;
        into.requests += run.samples.filter((s) => s.ok).length;
        into.ms += run.elapsedMs;
      }
    }
    await Promise.all(Object.values(pools).map((p) => p.close()));
    const rate = (name: string) => (done[name]!.requests / done[name]!.ms) * 1000;
    const [direct, bare] = [rate('direct'), rate('bare proxy')];
    lines.push(`| c=${concurrency} | ${direct.toFixed(0)} | ${bare.toFixed(0)} | ${(bare / direct).toFixed(2)}x | ${(done['bare proxy']!.cpu / done['bare proxy']!.requests).toFixed(3)} |`);
  }
  const out = path.join(ROOT_DIR, 'scripts/bench/results/ceiling.md');
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
  log(`written to ${path.relative(ROOT_DIR, out)}`);
}

main()
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
