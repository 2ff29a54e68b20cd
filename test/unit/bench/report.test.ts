import { expect } from 'chai';
import { percentile } from '../../../scripts/bench/load.ts';
import { renderMarkdown, targets, type BenchResults } from '../../../scripts/bench/report.ts';

const stream = (over: Partial<BenchResults['stream1'][string]> = {}) => ({
  streams: 100, complete: 100, ttfbP50: 2, ttfbP99: 4, addedTtfbP50: 1, addedTtfbP99: 3, gapP99: 21, addedGapP99: 0.5, ...over,
});

function results(over: { peer?: boolean; gatewayRps?: number; complete?: number } = {}): BenchResults {
  const peer = over.peer ?? true;
  const row = (p50: number, p99: number, added50: number, added99: number) => ({ samples: 100, errors: 0, p50, p99, addedP50: added50, addedP99: added99 });
  const tp = (rps: number) => ({ requests: 1000, cpuMsPerRequest: 1, dbCpuMsPerRequest: 0, rps, p50: 25, p99: 40, errorRate: 0 });
  return {
    generatedAt: '2026-11-22T00:00:00Z',
    mode: 'full',
    machine: { cpu: '2 x test', memoryGiB: 1, os: 'Linux', node: 'v20', postgres: '15', commit: 'abc' },
    peer: peer ? '@portkey-ai/gateway@1.15.2' : 'unavailable: skipped',
    plan: {},
    latency: { direct: row(0.3, 1, 0, 0), gateway: row(1.1, 3, 0.8, 2), ...(peer ? { peer: row(2.3, 9, 2, 8) } : {}) },
    throughput: { direct: tp(2000), gateway: tp(over.gatewayRps ?? 1500), ...(peer ? { peer: tp(900) } : {}) },
    stream1: { direct: stream(), gateway: stream(), ...(peer ? { peer: stream({ complete: 0, firstFailure: 'HTTP 500 {}' }) } : {}) },
    stream100: { direct: stream(), gateway: stream({ complete: over.complete ?? 100 }), ...(peer ? { peer: stream({ complete: 0 }) } : {}) },
    memory: { openStreams: 1000, complete: 1000, rssBeforeMb: 120, rssPeakMb: 180 },
    video: {
      tasks: 10, createFailures: 0, createdPerSecond: 100, liveBeforeDue: 10, settled: 10, review: 0, remaining: 0, settleSeconds: 1, settledPerSecond: 10,
      idleTick: { ticks: 10, queriesPerTick: 1, meanMs: 0.5, p99Ms: 1, plan: ['Index Scan using video_tasks_due'], planExecutionMs: 0.05, usesIndex: true },
      walletReserved: '0.000000', reconciliationOk: true,
    },
  };
}

describe('bench report', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(values, 50)).to.equal(50);
    expect(percentile(values, 99)).to.equal(99);
    expect(percentile(values, 100)).to.equal(100);
    expect(percentile([7], 99)).to.equal(7);
    expect(Number.isNaN(percentile([], 50))).to.equal(true);
  });

  it('checks each target against the peer measured in the same run', () => {
    const verdicts = Object.fromEntries(targets(results()).map((t) => [t.target, t.ok]));
    expect(verdicts).to.deep.equal({
      'c=1 added p50 <= 1 ms': true,
      "c=1 added p99 <= half the peer's": true,
      "c=50 req/s >= 1.5x the peer's": true,
      'c=50 no errors': true,
      'streams: added TTFB p99 < 5 ms (1 and 100 streams)': true,
      'no lost event at 100 streams': true,
      '<= 200 MB RSS at 1,000 open streams': true,
      'idle poller tick = one indexed query': true,
    });
    const missed = Object.fromEntries(targets(results({ gatewayRps: 1349, complete: 99 })).map((t) => [t.target, t.ok]));
    expect(missed["c=50 req/s >= 1.5x the peer's"]).to.equal(false);
    expect(missed['no lost event at 100 streams']).to.equal(false);
  });

  it('reports peer targets as not measured when the peer did not run, and renders every section', () => {
    const lonely = targets(results({ peer: false }));
    expect(lonely.find((t) => t.target.startsWith('c=50 req/s'))!.ok).to.equal(undefined);
    const markdown = renderMarkdown(results());
    expect(markdown).to.include('| c=1: added over direct, p50 / p99 (ms) | — | +0.80 / +2.00 | +2.00 / +8.00 |');
    expect(markdown).to.include('| 100 streams: streams complete, no lost event | 100/100 | 100/100 | 0/100 |');
    expect(markdown).to.include('- peer: HTTP 500 {}');
    expect(markdown).to.include('| idle poller tick = one indexed query | 1 query, Index Scan using video_tasks_due | met |');
  });
});
