// The results of one benchmark run and their markdown: per database, the direct upstream, the
// gateway and the peer side by side for each API, then the gateway-only lines and the targets of
// issue 15 (scripts/bench/verdicts.ts), and a summary of the verdicts across databases on top.
import type { Api } from './load.ts';
import type { ApiResults, BenchResults, DatabaseResults, StreamRow, ThroughputRow } from './results.ts';
import { renderScale } from './report-scale.ts';
import { BARE_PROXY } from './targets.ts';
import { cpuRatio, verdicts, type Verdict } from './verdicts.ts';

export { verdicts } from './verdicts.ts';

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(2));
const us = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(3));
const plus = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n >= 0 ? '+' : ''}${n.toFixed(2)}`);
const pct = (n: number | undefined) => (n === undefined ? 'n/a' : `${(n * 100).toFixed(2)} %`);
const mb = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n.toFixed(0)} MB`);
const mark = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : '**missed**');
const API_PATH: Record<Api, string> = { messages: '`/v1/messages`', chat: '`/v1/chat/completions`' };

function apiTables(api: Api, r: ApiResults, peerName: string): string[] {
  // The bare proxy (measured in the load phases only) beside the direct upstream, before the gateway.
  const order = (n: string) => ['direct', BARE_PROXY, 'gateway', 'peer'].indexOf(n) >>> 0;
  const names = [...new Set([...Object.keys(r.latency), ...Object.keys(r.throughput), ...Object.keys(r.wide), ...Object.keys(r.stream1)])].sort((a, b) => order(a) - order(b));
  const header = (label: string) => [`| ${label} | ${names.map((n) => (n === 'peer' ? `peer (${peerName})` : n)).join(' | ')} |`, `|---|${names.map(() => '---:').join('|')}|`];
  const row = <T>(set: Record<string, T>, label: string, cell: (value: T, name: string) => string) => `| ${label} | ${names.map((n) => (set[n] ? cell(set[n]!, n) : 'n/a')).join(' | ')} |`;
  const lines: string[] = [];
  const plain: string[] = [];
  if (Object.keys(r.latency).length) {
    plain.push(
      row(r.latency, 'c=1, zero-delay upstream: p50 / p99 (ms)', (v) => `${ms(v.p50)} / ${ms(v.p99)}`),
      row(r.latency, 'c=1: added over direct, p50 / p99 (ms)', (v, n) => (n === 'direct' ? '—' : `${plus(v.addedP50)} / ${plus(v.addedP99)}`)),
    );
  }
  const load = (set: Record<string, ThroughputRow>, c: number) =>
    Object.keys(set).length
      ? [
          row(set, `c=${c}, 20 ms upstream: requests/s`, (v) => v.rps.toFixed(0)),
          row(set, `c=${c}: p50 / p99 (ms)`, (v) => `${ms(v.p50)} / ${ms(v.p99)}`),
          row(set, `c=${c}: error rate`, (v) => pct(v.errorRate)),
          row(set, `c=${c}: CPU time per request (ms; direct: the upstream's)`, (v) => us(v.cpuMsPerRequest)),
          ...(set[BARE_PROXY] ? [row(set, `c=${c}: CPU time per request / the bare proxy's`, (v, n) => (n === 'direct' ? '—' : cpuRatio(v, set[BARE_PROXY]!)))] : []),
          row(set, `c=${c}: database CPU time per request (ms)`, (v) => us(v.dbCpuMsPerRequest)),
        ]
      : [];
  plain.push(...load(r.throughput, 50), ...load(r.wide, 200));
  if (plain.length) lines.push(...header(`Non-streaming ${API_PATH[api]}`), ...plain, '');
  if (Object.keys(r.stream1).length || Object.keys(r.stream100).length) {
    const streamRows = (label: string, set: Record<string, StreamRow>) => [
      row(set, `${label}: time to first byte p50 / p99 (ms)`, (v) => `${ms(v.ttfbP50)} / ${ms(v.ttfbP99)}`),
      row(set, `${label}: added TTFB p50 / p99 (ms)`, (v, n) => (n === 'direct' ? '—' : `${plus(v.addedTtfbP50)} / ${plus(v.addedTtfbP99)}`)),
      row(set, `${label}: gap between events p99 (added) (ms)`, (v, n) => (n === 'direct' ? ms(v.gapP99) : `${ms(v.gapP99)} (${plus(v.addedGapP99)})`)),
      row(set, `${label}: streams complete, no lost event`, (v) => `${v.complete}/${v.streams}`),
    ];
    lines.push(...header(`Streaming ${API_PATH[api]}, 64 deltas paced at 20 ms`), ...streamRows('1 stream', r.stream1), ...streamRows('100 streams', r.stream100), '');
  }
  const failures = names.flatMap((n) =>
    ([['c=50', r.throughput[n]], ['c=200', r.wide[n]], ['1 stream', r.stream1[n]], ['100 streams', r.stream100[n]]] as const)
      .filter(([, v]) => v?.firstFailure)
      .map(([phase, v]) => `- ${n}, ${phase}: ${v!.firstFailure}`),
  );
  if (failures.length) lines.push(`First failure seen (${API_PATH[api]}):`, ...failures, '');
  return lines;
}

function gatewayOnly(db: DatabaseResults): string[] {
  const lines = ['| Gateway only | |', '|---|---:|'];
  const after = db.rssAfterLoad;
  lines.push(`| RSS after the load phases (gateway process${after.databaseMb !== undefined ? ' / database process' : ''}) | ${mb(after.gatewayMb)}${after.databaseMb !== undefined ? ` / ${mb(after.databaseMb)}` : ''} |`);
  for (const [api, r] of Object.entries(db.apis) as Array<[Api, ApiResults]>) {
    const m = r.memory;
    if (!m) continue;
    const dbPart = m.dbRssPeakMb !== undefined ? `; database process ${mb(m.dbRssPeakMb)} (before: ${mb(m.dbRssBeforeMb)})` : '';
    lines.push(`| Peak RSS with ${m.openStreams} open ${API_PATH[api]} streams (fresh gateway process; before: ${mb(m.rssBeforeMb)}) | ${mb(m.rssPeakMb)} (${m.complete}/${m.openStreams} complete)${dbPart}${m.firstFailure ? `; first failure: ${m.firstFailure.replace(/\|/g, '\\|')}` : ''} |`);
  }
  const v = db.video;
  if (v) {
    lines.push(
      `| Video: ${v.tasks} tasks accepted (POST /v1/videos, c=50) | ${v.createdPerSecond.toFixed(0)} tasks/s, ${v.createFailures} failed |`,
      `| Video: ${v.liveBeforeDue} in flight made due at once (${v.method}): settled | ${v.settledPerSecond.toFixed(0)} tasks/s (${v.settled} settled in ${v.settleSeconds.toFixed(1)} s, ${v.review} review, ${v.remaining} left) |`,
    );
    const t = v.idleTick;
    if (t) lines.push(`| Video: idle poller tick (nothing due, ${v.liveBeforeDue} in flight) | ${t.queriesPerTick} query, mean ${t.meanMs.toFixed(2)} ms, p99 ${t.p99Ms.toFixed(2)} ms; plan: ${t.plan.join(' > ')} (${t.planExecutionMs.toFixed(3)} ms in PostgreSQL) |`);
  }
  const l = db.ledger;
  lines.push(`| Ledger after the run | reserved ${l.reserved ?? 'n/a'} (${l.waitedSeconds.toFixed(1)} s after the last request), reconciliation ${l.reconciliationOk === null ? 'n/a' : l.reconciliationOk ? 'ok' : 'NOT ok'}${l.detail ? `: ${l.detail}` : ''} |`);
  const g = db.gatewayLog;
  lines.push(`| Gateway log (JSON lines) | ${g.errors} error, ${g.warnings} warning lines${g.first ? `; first: ${g.first.replace(/\|/g, '\\|')}` : ''} |`);
  for (const exit of g.unexpectedExits ?? []) lines.push(`| **Gateway exited during the run** | ${exit} |`);
  if (g.stderrWarnings) {
    const phases = Object.entries(g.stderrByPhase ?? {}).map(([phase, n]) => `${n} during ${phase}`).join(', ');
    lines.push(`| Gateway stderr | ${g.stderrWarnings} warning lines (${phases}); first: ${g.firstStderr!.replace(/\|/g, '\\|')} |`);
  }
  return lines;
}

function summary(r: BenchResults): string[] {
  const byDb = r.databases.map((db) => new Map(verdicts(db).map((v) => [v.target, v])));
  const names = [...new Set(byDb.flatMap((m) => [...m.keys()]))];
  if (!names.length) return [];
  return [
    `| Target (issues 15 and 38) | ${r.databases.map((db) => db.label).join(' | ')} |`,
    `|---|${r.databases.map(() => '---').join('|')}|`,
    ...names.map((name) => `| ${name} | ${byDb.map((m) => (m.get(name) ? `${mark(m.get(name)!.ok)}: ${m.get(name)!.detail}` : '—')).join(' | ')} |`),
    '',
  ];
}

export function renderMarkdown(r: BenchResults): string {
  const peerName = r.peer.replace(/@[\d.]+$/, '');
  const sections = r.databases.flatMap((db) => [
    `## Gateway on ${db.label}`,
    '',
    ...(Object.entries(db.apis) as Array<[Api, ApiResults]>).flatMap(([api, results]) => apiTables(api, results, peerName)),
    ...gatewayOnly(db),
    '',
    '| Target (issues 15 and 38) | Result | |',
    '|---|---|---|',
    ...verdicts(db).map((t: Verdict) => `| ${t.target} | ${t.detail} | ${mark(t.ok)} |`),
    '',
  ]);
  return [
    `# Benchmark results (${r.mode} run, ${r.generatedAt})`,
    '',
    `Machine: ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, ${r.machine.os}; Node ${r.machine.node}; PostgreSQL ${r.machine.postgres}; commit ${r.machine.commit}.`,
    `Peer: ${r.peer}. Upstream: the simulated Anthropic Messages and OpenAI Chat Completions APIs in their own process. Everything (load generator, upstream, gateways, databases) shares this machine's cores. Direct and peer are measured again beside each database's gateway, in interleaved rounds.`,
    '',
    ...summary(r),
    ...sections,
    ...(r.scale ? renderScale(r.scale) : []),
  ].join('\n');
}
