// The scale phase's section of the results (scripts/bench/phases/scale.ts): an empty and a seeded
// PostgreSQL side by side.
import type { ScaleResults, ScaleTiming } from './results.ts';

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
    `| Retention job | ${s.retention} | |`,
    '',
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
