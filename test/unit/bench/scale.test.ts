import { expect } from 'chai';
import { parseOptions } from '../../../scripts/bench/options.ts';
import { renderScale } from '../../../scripts/bench/report-scale.ts';
import type { RetentionRun, ScaleResults } from '../../../scripts/bench/results.ts';

const hot = (rps: number) => ({ requests: 10_000, cpuMsPerRequest: 0.4, dbCpuMsPerRequest: 0.09, rps, p50: 25, p99: 60, errorRate: 0 });

function retentionRun(run: Partial<RetentionRun>): RetentionRun {
  const journal = (run.logRows?.before ?? 0) * 2;
  return { seconds: 0, partitionsDropped: 0, rowsInDroppedPartitions: 0, dropSeconds: 0, rowsDeletedInBatches: 0, batches: 1, batchSeconds: 0.01, batchRowsPerSecond: 0, logRows: { before: 0, after: 0 }, journalEntries: { before: journal, after: journal }, ...run };
}

function scale(seededRps: number): ScaleResults {
  return {
    requests: 10_000_000,
    journalEntries: 20_000_000,
    customers: 10_000,
    seedSeconds: 600,
    tables: [{ name: 'request_logs', rows: 10_000_000, tableMb: 3700, indexesMb: 2900 }],
    reads: [{ what: 'GET /v1/usage/export (CSV, the last 7 days)', empty: { p50Ms: 10, maxMs: 12, rows: 100, rowsPerSecond: 10_000 }, seeded: { p50Ms: 2000, maxMs: 2100, rows: 80_000, rowsPerSecond: 40_000 } }],
    hotPath: { empty: hot(1000), seeded: hot(seededRps), ratio: seededRps / 1000, perRequest: { empty: { transactions: 0.015, rowsWritten: 2.07 }, seeded: { transactions: 0.016, rowsWritten: 2.07 } } },
    retention: {
      days: 30,
      batchSize: 5_000,
      empty: retentionRun({ seconds: 0.05, logRows: { before: 30_000, after: 30_000 } }),
      seeded: retentionRun({ seconds: 120, partitionsDropped: 2, rowsInDroppedPartitions: 3_700_000, dropSeconds: 0.4, rowsDeletedInBatches: 3_000_000, batches: 601, batchSeconds: 100, batchRowsPerSecond: 30_000, logRows: { before: 10_000_000, after: 3_300_000 } }),
      hotPathDuring: { requests: 100_000, rps: 800, p50: 50, p99: 150, errorRate: 0 },
    },
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

  it('reports the retention job on both sides: partitions dropped, rows deleted in batches, and the journal unchanged (or not)', () => {
    const text = renderScale(scale(960)).join('\n');
    expect(text).to.include('| Retention job, REQUEST_LOG_RETENTION_DAYS=30 | empty database | seeded database |');
    expect(text).to.include('| request-log rows before → after | 30,000 → 30,000 | 10,000,000 → 3,300,000 |');
    expect(text).to.include('| partitions dropped (their rows; seconds) | 0 (0; 0.00 s) | 2 (3,700,000; 0.40 s) |');
    expect(text).to.include('| rows deleted in batches of 5,000 (batches; seconds; rows/s) | 0 (1; 0.0 s; 0 rows/s) | 3,000,000 (601; 100.0 s; 30,000 rows/s) |');
    expect(text).to.include('| journal entries before → after | 60,000 → 60,000 (unchanged) | 20,000,000 → 20,000,000 (unchanged) |');
    expect(text).to.include('| hot path at c=50 during the job: requests/s, p50 / p99 (ms), errors | | 800, 50.00 / 150.00, 0.00 % |');
    const touched = scale(960);
    touched.retention.seeded = retentionRun({ logRows: { before: 10_000_000, after: 3_300_000 }, journalEntries: { before: 20_000_000, after: 19_999_999 } });
    expect(renderScale(touched).join('\n')).to.include('20,000,000 → 19,999,999 (**changed**)');
    touched.retention.seeded = { failed: 'canceling statement due to lock timeout' };
    expect(renderScale(touched).join('\n')).to.include('| seconds | 0.1 | **failed**: canceling statement due to lock timeout |');
  });
});
