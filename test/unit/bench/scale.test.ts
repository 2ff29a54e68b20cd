import { expect } from 'chai';
import { parseOptions } from '../../../scripts/bench/options.ts';
import { renderScale } from '../../../scripts/bench/report-scale.ts';
import type { ScaleResults } from '../../../scripts/bench/results.ts';

const hot = (rps: number) => ({ requests: 10_000, cpuMsPerRequest: 0.4, dbCpuMsPerRequest: 0.09, rps, p50: 25, p99: 60, errorRate: 0 });

function scale(seededRps: number): ScaleResults {
  return {
    requests: 10_000_000,
    journalEntries: 20_000_000,
    customers: 10_000,
    seedSeconds: 600,
    tables: [{ name: 'request_logs', rows: 10_000_000, tableMb: 3700, indexesMb: 2900 }],
    reads: [{ what: 'GET /v1/usage/export (CSV, the last 7 days)', empty: { p50Ms: 10, maxMs: 12, rows: 100, rowsPerSecond: 10_000 }, seeded: { p50Ms: 2000, maxMs: 2100, rows: 80_000, rowsPerSecond: 40_000 } }],
    hotPath: { empty: hot(1000), seeded: hot(seededRps), ratio: seededRps / 1000, perRequest: { empty: { transactions: 0.015, rowsWritten: 2.07 }, seeded: { transactions: 0.016, rowsWritten: 2.07 } } },
    retention: 'not measured',
  };
}

describe('bench scale phase', () => {
  it('is asked for with --scale (10 million rows, a million with --quick, or N) or --only=scale', () => {
    expect(parseOptions([]).scaleRequests).to.equal(0);
    expect(parseOptions(['--scale']).scaleRequests).to.equal(10_000_000);
    expect(parseOptions(['--scale', '--quick']).scaleRequests).to.equal(1_000_000);
    expect(parseOptions(['--scale=200000']).scaleRequests).to.equal(200_000);
    expect(parseOptions(['--only=scale']).scaleRequests).to.equal(10_000_000);
    expect(() => parseOptions(['--scale=lots'])).to.throw('unknown option');
  });

  it('reports the seeded side beside the empty one, and the hot path within 5 % as met or missed', () => {
    const met = renderScale(scale(960)).join('\n');
    expect(met).to.include('## Scale: 10 million request-log rows and 20 million journal entries across 10,000 customers (PostgreSQL)');
    expect(met).to.include('| GET /v1/usage/export (CSV, the last 7 days) | 10.0 / 12.0 (100 rows, 10000 rows/s) | 2000.0 / 2100.0 (80000 rows, 40000 rows/s) |');
    expect(met).to.include("| scale: c=50 req/s on the seeded database within 5 % of the empty one's | 960 vs 1000 (0.960x) | met |");
    expect(renderScale(scale(940)).join('\n')).to.include('(0.940x) | **missed** |');
  });
});
