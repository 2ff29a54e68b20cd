// The scale phase's section of the results (scripts/bench/phases/scale.ts): an empty and a seeded
// PostgreSQL side by side.
import type { RetentionRun, ScaleResults, ScaleTiming } from './results.ts';

/** Issue 38: the hot path on the seeded database keeps at least this share of the empty one's throughput. */
export const SCALE_HOT_PATH_SHARE = 0.95;

const millions = (n: number) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} million`;
const timing = (t: ScaleTiming) => `${t.p50Ms.toFixed(1)} / ${t.maxMs.toFixed(1)}${t.rows === undefined ? '' : ` (${t.rows} rows, ${t.rowsPerSecond} rows/s)`}`;

export function renderScale(s: ScaleResults): string[] {
  const hot = s.hotPath;
  const ok = hot.ratio >= SCALE_HOT_PATH_SHARE;
  return [
    `## Scale: ${millions(s.requests)} request-log rows and ${millions(s.journalEntries)} journal entries across ${s.customers.toLocaleString('en-US')} customers (PostgreSQL)`,
    '',
    `Seeded inside the database in ${s.seedSeconds} s; ${s.tables.map((t) => `${t.name}: ${t.rows.toLocaleString('en-US')} rows, ${t.tableMb} MB + ${t.indexesMb} MB of indexes`).join('; ')}. One gateway on an empty database and one on the seeded database, measured in alternation; the bench customer owns a tenth of the seeded history.`,
    '',
    '| Read (p50 / max, ms) | empty database | seeded database |',
    '|---|---:|---:|',
    ...s.reads.map((r) => `| ${r.what} | ${timing(r.empty)} | ${timing(r.seeded)} |`),
    '',
    ...renderRetention(s.retention),
    '| Hot path, c=50, 20 ms upstream | empty database | seeded database |',
    '|---|---:|---:|',
    `| requests/s | ${hot.empty.rps.toFixed(0)} | ${hot.seeded.rps.toFixed(0)} |`,
    `| p50 / p99 (ms) | ${hot.empty.p50.toFixed(2)} / ${hot.empty.p99.toFixed(2)} | ${hot.seeded.p50.toFixed(2)} / ${hot.seeded.p99.toFixed(2)} |`,
    `| error rate | ${(hot.empty.errorRate * 100).toFixed(2)} % | ${(hot.seeded.errorRate * 100).toFixed(2)} % |`,
    `| database CPU time per request (ms) | ${hot.empty.dbCpuMsPerRequest.toFixed(3)} | ${hot.seeded.dbCpuMsPerRequest.toFixed(3)} |`,
    `| database transactions per request | ${hot.perRequest.empty.transactions} | ${hot.perRequest.seeded.transactions} |`,
    `| database rows written per request | ${hot.perRequest.empty.rowsWritten} | ${hot.perRequest.seeded.rowsWritten} |`,
    '',
    `| Target (issue 38) | Result | |`,
    '|---|---|---|',
    `| scale: c=50 req/s on the seeded database within 5 % of the empty one's | ${hot.seeded.rps.toFixed(0)} vs ${hot.empty.rps.toFixed(0)} (${hot.ratio.toFixed(3)}x) | ${ok ? 'met' : '**missed**'} |`,
    '',
  ];
}

const count = (n: number) => n.toLocaleString('en-US');

/** The retention job on each side: what it removed and how, in how long, and the journal untouched. */
function renderRetention(r: ScaleResults['retention']): string[] {
  const each = (run: RetentionRun | { failed: string }, f: (run: RetentionRun) => string) => ('failed' in run ? `**failed**: ${run.failed}` : f(run));
  const both = (f: (run: RetentionRun) => string) => `${each(r.empty, f)} | ${each(r.seeded, f)} |`;
  const journal = (run: RetentionRun) => `${count(run.journalEntries.before)} → ${count(run.journalEntries.after)}${run.journalEntries.after === run.journalEntries.before ? ' (unchanged)' : ' (**changed**)'}`;
  const hot = r.hotPathDuring;
  return [
    `| Retention job, REQUEST_LOG_RETENTION_DAYS=${r.days} | empty database | seeded database |`,
    '|---|---:|---:|',
    `| seconds | ${both((run) => run.seconds.toFixed(1))}`,
    `| request-log rows before → after | ${both((run) => `${count(run.logRows.before)} → ${count(run.logRows.after)}`)}`,
    `| partitions dropped (their rows; seconds) | ${both((run) => `${run.partitionsDropped} (${count(run.rowsInDroppedPartitions)}; ${run.dropSeconds.toFixed(2)} s)`)}`,
    `| rows deleted in batches of ${count(r.batchSize)} (batches; seconds; rows/s) | ${both((run) => `${count(run.rowsDeletedInBatches)} (${run.batches}; ${run.batchSeconds.toFixed(1)} s; ${count(run.batchRowsPerSecond)} rows/s)`)}`,
    `| journal entries before → after | ${both(journal)}`,
    ...(hot ? [`| hot path at c=50 during the job: requests/s, p50 / p99 (ms), errors | | ${hot.rps.toFixed(0)}, ${hot.p50.toFixed(2)} / ${hot.p99.toFixed(2)}, ${(hot.errorRate * 100).toFixed(2)} % |`] : []),
    '',
  ];
}
