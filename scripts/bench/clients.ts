// npm run bench:clients: got against undici on the messages passthrough path, side by side. Each
// client runs in a worker process of its own (client-worker.mjs) against the simulated Anthropic
// upstream (zero delay, its own process), in interleaved rounds: CPU time per request at c=1 and
// at c=50, and c=50 throughput for JSON answers and for SSE streams of 16 deltas. The relay keeps
// whichever client these figures favour (src/providers/http.ts; docs/performance.md).
// Writes scripts/bench/results/clients.{md,json}.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { createChildGroup, stopOnSignals } from '../lib/children.ts';
import { createProcesses } from './processes.ts';

const ROUNDS = 3;
const CLIENTS = ['undici', 'got'] as const;
type Client = (typeof CLIENTS)[number];
interface WorkerResult {
  client: Client;
  c1: { cpuUsPerRequest: number; p50Ms: number; failures: number };
  c50: { requestsPerSecond: number; cpuUsPerRequest: number; failures: number };
  c50Stream: { requestsPerSecond: number; cpuUsPerRequest: number; failures: number };
}

const children = createChildGroup();
const log = (m: string) => console.error(`[clients] ${new Date().toISOString().slice(11, 19)} ${m}`);
stopOnSignals(children, log);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-clients-'));
  const upstream = await createProcesses(children, workDir).startUpstream();
  const runs: WorkerResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order, so neither client always runs on a warmer upstream.
    for (const client of round % 2 === 0 ? CLIENTS : [...CLIENTS].reverse()) {
      log(`round ${round + 1}/${ROUNDS}: ${client}`);
      const worker = path.join(ROOT_DIR, 'scripts/bench/client-worker.mjs');
      runs.push(JSON.parse(execFileSync(process.execPath, [worker, client, upstream.anthropic], { encoding: 'utf8' })) as WorkerResult);
    }
  }
  const of = (client: Client, pick: (r: WorkerResult) => number) => median(runs.filter((r) => r.client === client).map(pick));
  const row = (label: string, pick: (r: WorkerResult) => number, digits: number) =>
    `| ${label} | ${of('undici', pick).toFixed(digits)} | ${of('got', pick).toFixed(digits)} | ${(of('got', pick) / of('undici', pick)).toFixed(2)}x |`;
  const failures = runs.reduce((n, r) => n + r.c1.failures + r.c50.failures + r.c50Stream.failures, 0);
  const lines = [
    '# got against undici on the messages passthrough path (`npm run bench:clients`)',
    '',
    `${new Date().toISOString()}; ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}; Node ${process.version}; got ${version('got')}, undici ${version('undici')}.`,
    `Each client in a process of its own, POSTing a messages body to the simulated upstream (zero delay, its own process) and reading the answer chunk by chunk, as the relay does; medians of ${ROUNDS} interleaved rounds. The load and the upstream share this machine's cores. Failed requests: ${failures}.`,
    '',
    '| per request / per second | undici | got | got / undici |',
    '|---|---:|---:|---:|',
    row('c=1, JSON answer: client CPU time per request (µs)', (r) => r.c1.cpuUsPerRequest, 0),
    row('c=1, JSON answer: p50 round trip (ms)', (r) => r.c1.p50Ms, 2),
    row('c=50, JSON answer: requests/s', (r) => r.c50.requestsPerSecond, 0),
    row('c=50, JSON answer: client CPU time per request (µs)', (r) => r.c50.cpuUsPerRequest, 0),
    row('c=50, SSE stream of 16 deltas: requests/s', (r) => r.c50Stream.requestsPerSecond, 0),
    row('c=50, SSE stream of 16 deltas: client CPU time per request (µs)', (r) => r.c50Stream.cpuUsPerRequest, 0),
  ];
  const dir = path.join(ROOT_DIR, 'scripts/bench/results');
  fs.writeFileSync(path.join(dir, 'clients.json'), `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, runs }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'clients.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
}

function version(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

main()
  .then(() => children.stopAll().then(() => process.exit(0)))
  .catch((error: unknown) => {
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    void children.stopAll().then(() => process.exit(1));
  });
