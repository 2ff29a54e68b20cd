import { expect } from 'chai';
import { classifyFrame, percentile } from '../../../scripts/bench/load.ts';
import { renderMarkdown, verdicts } from '../../../scripts/bench/report.ts';
import type { ApiResults, BenchResults, DatabaseResults } from '../../../scripts/bench/results.ts';

const stream = (over: Partial<ApiResults['stream1'][string]> = {}) => ({
  streams: 100, complete: 100, ttfbP50: 2, ttfbP99: 4, addedTtfbP50: 1, addedTtfbP99: 3, gapP99: 21, addedGapP99: 0.5, ...over,
});
const row = (p50: number, p99: number, added50: number, added99: number) => ({ samples: 100, errors: 0, p50, p99, addedP50: added50, addedP99: added99 });
const tp = (rps: number, p99 = 40, cpuMsPerRequest = 1) => ({ requests: 1000, cpuMsPerRequest, dbCpuMsPerRequest: 0.2, rps, p50: 25, p99, errorRate: 0 });

interface Over { peer?: boolean; bareCpuMs?: number; gatewayRps?: number; wideRps?: number; complete?: number; rssPeakMb?: number; reserved?: string; settledPerSecond?: number }

function api(over: Over): ApiResults {
  const peer = over.peer ?? true;
  return {
    latency: { direct: row(0.3, 1, 0, 0), gateway: row(1.1, 3, 0.8, 2), ...(peer ? { peer: row(2.3, 9, 2, 8) } : {}) },
    throughput: { direct: tp(2000), 'bare proxy': tp(1900, 30, over.bareCpuMs ?? 0.4), gateway: tp(over.gatewayRps ?? 1500), ...(peer ? { peer: tp(900, 60, 1.5) } : {}) },
    wide: { direct: tp(5000), gateway: tp(over.wideRps ?? 4600), ...(peer ? { peer: tp(900) } : {}) },
    stream1: { direct: stream(), gateway: stream(), ...(peer ? { peer: stream({ complete: 0, ttfbP99: Number.NaN, firstFailure: 'HTTP 500 {}' }) } : {}) },
    stream100: { direct: stream(), gateway: stream({ complete: over.complete ?? 100 }), ...(peer ? { peer: stream({ complete: 0 }) } : {}) },
    memory: { openStreams: 1000, complete: 1000, rssBeforeMb: 120, rssPeakMb: over.rssPeakMb ?? 180 },
  };
}

function database(kind: DatabaseResults['database'], over: Over = {}): DatabaseResults {
  return {
    database: kind,
    label: kind === 'postgres' ? 'PostgreSQL 15' : 'the embedded database',
    apis: { messages: api(over), chat: api(over) },
    rssAfterLoad: { gatewayMb: 150, ...(kind === 'embedded' ? { databaseMb: 400 } : {}) },
    video: {
      method: 'one UPDATE', tasks: 10_000, createFailures: 0, createdPerSecond: 300, liveBeforeDue: 10_000, settled: 10_000, review: 0, remaining: 0, settleSeconds: 5, settledPerSecond: over.settledPerSecond ?? 2000,
      ...(kind === 'postgres' ? { idleTick: { ticks: 10, queriesPerTick: 1, meanMs: 0.5, p99Ms: 1, plan: ['Index Scan using video_tasks_due'], planExecutionMs: 0.05, usesIndex: true } } : {}),
    },
    ledger: { reserved: over.reserved ?? '0.000000', reconciliationOk: true, waitedSeconds: 10.2 },
    gatewayLog: { warnings: 0, errors: 0 },
  };
}

function results(databases: DatabaseResults[]): BenchResults {
  return {
    generatedAt: '2026-11-23T00:00:00Z',
    mode: 'full',
    machine: { cpu: '2 x test', memoryGiB: 1, os: 'Linux', node: 'v20', postgres: '15', commit: 'abc' },
    peer: '@portkey-ai/gateway@1.15.2',
    plan: {},
    databases,
  };
}

const verdictMap = (db: DatabaseResults) => Object.fromEntries(verdicts(db).map((v) => [v.target, v.ok]));

describe('bench report', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(values, 50)).to.equal(50);
    expect(percentile(values, 99)).to.equal(99);
    expect(percentile(values, 100)).to.equal(100);
    expect(percentile([7], 99)).to.equal(7);
    expect(Number.isNaN(percentile([], 50))).to.equal(true);
  });

  it('reads both APIs\' stream frames: content deltas and the end event', () => {
    expect(classifyFrame('messages', 'event: content_block_delta\ndata: {}')).to.equal('delta');
    expect(classifyFrame('messages', 'event: message_stop\ndata: {"type":"message_stop"}')).to.equal('stop');
    expect(classifyFrame('messages', 'event: ping\ndata: {}')).to.equal('other');
    expect(classifyFrame('chat', 'data: {"choices":[{"index":0,"delta":{"content":" from"}}]}')).to.equal('delta');
    expect(classifyFrame('chat', 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}')).to.equal('other');
    expect(classifyFrame('chat', 'data: {"choices":[],"usage":{"prompt_tokens":4}}')).to.equal('other');
    expect(classifyFrame('chat', 'data: [DONE]')).to.equal('stop');
    expect(classifyFrame('chat', 'data: {"choices":[{"delta":{"content":"cut')).to.equal('other');
  });

  it('checks each target of issue 15 per API and per database, against the peer measured in the same run', () => {
    const met = verdictMap(database('postgres'));
    expect(Object.values(met).every((ok) => ok === true), JSON.stringify(met)).to.equal(true);
    expect(Object.keys(met)).to.include.members([
      'messages: c=1 added p50 <= 1 ms and <= the peer\'s',
      'chat: c=1 added p99 <= the peer\'s',
      "chat: c=50 req/s >= 1.5x the peer's (PostgreSQL), >= 1.0x (embedded)",
      'messages: c=50 p99 <= the peer\'s',
      'chat: streams, added TTFB p99 < 5 ms (1 and 100 streams)',
      'messages: c=200, 20 ms upstream: req/s within 10% of direct',
      'chat: 1,000 open streams under 200 MB RSS',
      'video: 10000 due tasks settled at >= 1,000/s',
      'video: idle poller tick = one indexed query',
      'money: reconciliation ok, reserved 0 once grants are given back',
      "messages: c=50 CPU per request <= 3x the bare proxy's",
    ]);
    // 1.2x the peer: enough on the embedded database (1.0x), not on PostgreSQL (1.5x).
    const c50 = "messages: c=50 req/s >= 1.5x the peer's (PostgreSQL), >= 1.0x (embedded)";
    expect(verdictMap(database('postgres', { gatewayRps: 1080 }))[c50]).to.equal(false);
    const embedded = verdictMap(database('embedded', { gatewayRps: 1080 }));
    expect(embedded[c50]).to.equal(true);
    expect(Object.keys(embedded).some((t) => t.startsWith('video:')), 'no video target on the embedded database').to.equal(false);
    const missed = verdictMap(database('postgres', { wideRps: 4400, complete: 99, rssPeakMb: 200, reserved: '0.250000', settledPerSecond: 999 }));
    expect(missed['messages: c=200, 20 ms upstream: req/s within 10% of direct']).to.equal(false);
    expect(missed['chat: no lost event (1 and 100 streams)']).to.equal(false);
    expect(missed['chat: 1,000 open streams under 200 MB RSS']).to.equal(false);
    expect(missed['money: reconciliation ok, reserved 0 once grants are given back']).to.equal(false);
    expect(missed['video: 10000 due tasks settled at >= 1,000/s']).to.equal(false);
    // 1 ms against a bare proxy's 0.3 ms is 3.33x: over issue 38's limit.
    expect(verdictMap(database('postgres', { bareCpuMs: 0.3 }))["chat: c=50 CPU per request <= 3x the bare proxy's"]).to.equal(false);
  });

  it('reports peer targets as not measured when the peer did not run', () => {
    const lonely = verdictMap(database('postgres', { peer: false }));
    expect(lonely["messages: c=50 req/s >= 1.5x the peer's (PostgreSQL), >= 1.0x (embedded)"]).to.equal(undefined);
    expect(lonely["chat: c=1 added p99 <= the peer's"]).to.equal(undefined);
    // +0.80 ms meets the 1 ms half of the c=1 target; without the peer's figure the whole is unknown.
    expect(lonely["messages: c=1 added p50 <= 1 ms and <= the peer's"]).to.equal(undefined);
  });

  it('renders one section per database with both APIs, the database process apart, and a summary across databases', () => {
    const markdown = renderMarkdown(results([database('postgres'), database('embedded', { gatewayRps: 1080 })]));
    expect(markdown).to.include('| Target (issues 15 and 38) | PostgreSQL 15 | the embedded database |');
    expect(markdown).to.include("| messages: c=50 CPU per request <= 3x the bare proxy's | met: 1.000 vs 0.400 ms (2.50x); peer 1.500 ms (3.75x) |");
    expect(markdown).to.include("| c=50: CPU time per request / the bare proxy's | — | 1.00x | 2.50x | 3.75x |");
    expect(markdown).to.include('| c=200, 20 ms upstream: requests/s | 5000 | n/a | 4600 | 900 |');
    expect(markdown).to.include("| messages: c=50 req/s >= 1.5x the peer's (PostgreSQL), >= 1.0x (embedded) | met: 1500 vs 900 (1.67x; needs 1.5x) | met: 1080 vs 900 (1.20x; needs 1.0x) |");
    expect(markdown).to.include('## Gateway on PostgreSQL 15');
    expect(markdown).to.include('## Gateway on the embedded database');
    expect(markdown).to.include('| c=1: added over direct, p50 / p99 (ms) | — | n/a | +0.80 / +2.00 | +2.00 / +8.00 |');
    expect(markdown).to.include('| Non-streaming `/v1/chat/completions` | direct | bare proxy | gateway | peer (@portkey-ai/gateway) |');
    expect(markdown).to.include('| 100 streams: streams complete, no lost event | 100/100 | n/a | 100/100 | 0/100 |');
    expect(markdown).to.include('- peer, 1 stream: HTTP 500 {}');
    expect(markdown).to.include('| RSS after the load phases (gateway process / database process) | 150 MB / 400 MB |');
    expect(markdown).to.include('| Ledger after the run | reserved 0.000000 (10.2 s after the last request), reconciliation ok |');
    expect(markdown).to.include('| video: idle poller tick = one indexed query | 1 query, Index Scan using video_tasks_due | met |');
  });
});
