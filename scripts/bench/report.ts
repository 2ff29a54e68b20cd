// The results of one benchmark run and their markdown table, with each target of issue 6 checked.
import type { IdleTick } from './video-tick.ts';

interface LatencyRow { samples: number; errors: number; p50: number; p99: number; addedP50: number; addedP99: number }
interface ThroughputRow { requests: number; cpuMsPerRequest: number; dbCpuMsPerRequest: number; rps: number; p50: number; p99: number; errorRate: number }
interface StreamRow {
  streams: number;
  complete: number;
  ttfbP50: number;
  ttfbP99: number;
  addedTtfbP50: number;
  addedTtfbP99: number;
  gapP99: number;
  addedGapP99: number;
  firstFailure?: string;
}

export interface BenchResults {
  generatedAt: string;
  mode: 'quick' | 'full';
  machine: { cpu: string; memoryGiB: number; os: string; node: string; postgres: string; commit: string };
  peer: string;
  plan: Record<string, number>;
  latency: Record<string, LatencyRow>;
  throughput: Record<string, ThroughputRow>;
  stream1: Record<string, StreamRow>;
  stream100: Record<string, StreamRow>;
  memory: { openStreams: number; complete: number; rssBeforeMb: number; rssPeakMb: number };
  video: {
    tasks: number;
    createFailures: number;
    createdPerSecond: number;
    liveBeforeDue: number;
    settled: number;
    review: number;
    remaining: number;
    settleSeconds: number;
    settledPerSecond: number;
    idleTick: IdleTick;
    walletReserved: string | null;
    reconciliationOk: boolean | null;
  };
}

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(2));
const plus = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n >= 0 ? '+' : ''}${n.toFixed(2)}`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : '**missed**');

/** Each target of the issue against this run's figures (undefined: the peer could not be measured). */
export function targets(r: BenchResults): Array<{ target: string; ok: boolean | undefined; detail: string }> {
  const gw = r.latency.gateway!;
  const peer = r.latency.peer;
  const tg = r.throughput.gateway!;
  const tp = r.throughput.peer;
  const s100 = r.stream100.gateway!;
  return [
    { target: 'c=1 added p50 <= 1 ms', ok: gw.addedP50 <= 1, detail: `${plus(gw.addedP50)} ms` },
    { target: "c=1 added p99 <= half the peer's", ok: peer ? gw.addedP99 <= peer.addedP99 / 2 : undefined, detail: `${plus(gw.addedP99)} ms vs peer ${plus(peer?.addedP99)} ms` },
    { target: "c=50 req/s >= 1.5x the peer's", ok: tp ? tg.rps >= 1.5 * tp.rps : undefined, detail: `${tg.rps.toFixed(0)} vs ${tp ? tp.rps.toFixed(0) : 'n/a'} (${tp ? (tg.rps / tp.rps).toFixed(2) : 'n/a'}x)` },
    { target: 'c=50 no errors', ok: tg.errorRate === 0, detail: `${(tg.errorRate * 100).toFixed(2)} %` },
    { target: 'streams: added TTFB p99 < 5 ms (1 and 100 streams)', ok: r.stream1.gateway!.addedTtfbP99 < 5 && s100.addedTtfbP99 < 5, detail: `${plus(r.stream1.gateway!.addedTtfbP99)} / ${plus(s100.addedTtfbP99)} ms` },
    { target: 'no lost event at 100 streams', ok: s100.complete === s100.streams, detail: `${s100.complete}/${s100.streams} complete` },
    { target: '<= 200 MB RSS at 1,000 open streams', ok: r.memory.rssPeakMb <= 200 && r.memory.complete === r.memory.openStreams, detail: `${r.memory.rssPeakMb.toFixed(0)} MB, ${r.memory.complete}/${r.memory.openStreams} complete` },
    { target: 'idle poller tick = one indexed query', ok: r.video.idleTick.queriesPerTick === 1 && r.video.idleTick.usesIndex, detail: `${r.video.idleTick.queriesPerTick} query, ${r.video.idleTick.plan.find((n) => n.includes('video_tasks_due')) ?? r.video.idleTick.plan.join(' > ')}` },
  ];
}

export function renderMarkdown(r: BenchResults): string {
  const names = Object.keys(r.latency);
  const header = (label: string) => `| ${label} | ${names.map((n) => (n === 'peer' ? `peer (${r.peer.replace(/@[\d.]+$/, '')})` : n)).join(' | ')} |\n|---|${names.map(() => '---:').join('|')}|`;
  const row = (label: string, cell: (name: string) => string) => `| ${label} | ${names.map(cell).join(' | ')} |`;
  const streamRows = (label: string, set: Record<string, StreamRow>) => [
    row(`${label}: time to first byte p50 / p99 (ms)`, (n) => `${ms(set[n]!.ttfbP50)} / ${ms(set[n]!.ttfbP99)}`),
    row(`${label}: added TTFB p50 / p99 (ms)`, (n) => (n === 'direct' ? '—' : `${plus(set[n]!.addedTtfbP50)} / ${plus(set[n]!.addedTtfbP99)}`)),
    row(`${label}: gap between events p99 (added) (ms)`, (n) => (n === 'direct' ? ms(set[n]!.gapP99) : `${ms(set[n]!.gapP99)} (${plus(set[n]!.addedGapP99)})`)),
    row(`${label}: streams complete, no lost event`, (n) => `${set[n]!.complete}/${set[n]!.streams}`),
  ];
  const failures = names.flatMap((n) =>
    [r.stream1[n], r.stream100[n]].filter((s) => s?.firstFailure).map((s) => `- ${n}: ${s!.firstFailure}`),
  );
  const v = r.video;
  return [
    `# Benchmark results (${r.mode} run, ${r.generatedAt})`,
    '',
    `Machine: ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, ${r.machine.os}; Node ${r.machine.node}; PostgreSQL ${r.machine.postgres}; commit ${r.machine.commit}.`,
    `Peer: ${r.peer}. Upstream: the simulated Anthropic API in its own process. Everything (load generator, upstream, gateways, PostgreSQL) shares this machine's cores.`,
    '',
    header('Non-streaming `/v1/messages`'),
    row('c=1, zero-delay upstream: p50 / p99 (ms)', (n) => `${ms(r.latency[n]!.p50)} / ${ms(r.latency[n]!.p99)}`),
    row('c=1: added over direct, p50 / p99 (ms)', (n) => (n === 'direct' ? '—' : `${plus(r.latency[n]!.addedP50)} / ${plus(r.latency[n]!.addedP99)}`)),
    row('c=50, 20 ms upstream: requests/s', (n) => r.throughput[n]!.rps.toFixed(0)),
    row('c=50: p50 / p99 (ms)', (n) => `${ms(r.throughput[n]!.p50)} / ${ms(r.throughput[n]!.p99)}`),
    row('c=50: error rate', (n) => `${(r.throughput[n]!.errorRate * 100).toFixed(2)} %`),
    row('c=50: CPU time per request (ms; direct: the upstream\'s)', (n) => ms(r.throughput[n]!.cpuMsPerRequest)),
    row('c=50: PostgreSQL CPU time per request (ms)', (n) => ms(r.throughput[n]!.dbCpuMsPerRequest)),
    '',
    header('Streaming `/v1/messages`, 64 deltas paced at 20 ms'),
    ...streamRows('1 stream', r.stream1),
    ...streamRows('100 streams', r.stream100),
    ...(failures.length ? ['', 'First failure seen:', ...failures] : []),
    '',
    '| Gateway only | |',
    '|---|---:|',
    `| Peak RSS with ${r.memory.openStreams} open streams (before: ${r.memory.rssBeforeMb.toFixed(0)} MB) | ${r.memory.rssPeakMb.toFixed(0)} MB (${r.memory.complete}/${r.memory.openStreams} complete) |`,
    `| Video: ${v.tasks} tasks accepted (POST /v1/videos, c=50) | ${v.createdPerSecond.toFixed(0)} tasks/s, ${v.createFailures} failed |`,
    `| Video: ${v.liveBeforeDue} in flight made due at once: settled | ${v.settledPerSecond.toFixed(0)} tasks/s (${v.settled} settled in ${v.settleSeconds.toFixed(1)} s, ${v.review} review, ${v.remaining} left) |`,
    `| Video: idle poller tick (nothing due, ${v.liveBeforeDue} in flight) | ${v.idleTick.queriesPerTick} query, mean ${v.idleTick.meanMs.toFixed(2)} ms, p99 ${v.idleTick.p99Ms.toFixed(2)} ms; plan: ${v.idleTick.plan.join(' > ')} (${v.idleTick.planExecutionMs.toFixed(3)} ms in PostgreSQL) |`,
    `| Ledger after the run | reserved ${v.walletReserved ?? 'n/a'}, reconciliation ${v.reconciliationOk ? 'ok' : 'NOT ok'} |`,
    '',
    '| Target (issue 6) | Result | |',
    '|---|---|---|',
    ...targets(r).map((t) => `| ${t.target} | ${t.detail} | ${verdict(t.ok)} |`),
    '',
  ].join('\n');
}
