// The retention job in the scale phase (issue 38, 2 and 3): the request log's upkeep as the
// gateway's hourly cron runs it (src/logs/retention.ts under the lease src/jobs/lease.ts, built as
// src/gateway.ts builds it), with REQUEST_LOG_RETENTION_DAYS set, run once on each side: on the
// seeded database it drops the months wholly before the horizon and removes the rest of the
// horizon's month in batches; on the empty one it has nothing to remove. Its statements are timed
// by kind (partition drops, batched deletes) from knex's query events, the request log and the
// journal counted before and after, and the seeded gateway's hot path kept at c=50 meanwhile.
import knexPkg from 'knex';
import { REQUEST_LOG_UPKEEP_LEASE } from '../../src/jobs/cron.ts';
import { leaseOf } from '../../src/jobs/lease.ts';
import { createLogger } from '../../src/logger.ts';
import { createRequestLogUpkeep, RETENTION_BATCH } from '../../src/logs/retention.ts';
import { closedLoop, makePool, type RequestSample, type Target } from './load.ts';
import type { RetentionRun, ScaleResults } from './results.ts';
import { throughputRow } from './summarise.ts';

/** REQUEST_LOG_RETENTION_DAYS for the run: of the seeded 90 days, the last 30 stay. */
export const SCALE_RETENTION_DAYS = 30;
/** The gateway's default DB_QUERY_TIMEOUT_MS: a statement of the job's that takes longer fails there too. */
const QUERY_TIMEOUT_MS = 10_000;

export interface RetentionSide {
  url: string;
  /** The side's gateway, to keep at c=50 while the job runs (the seeded side). */
  load?: { target: Target; body: string };
}

export async function measureRetention(
  sides: { empty: RetentionSide; seeded: RetentionSide },
  log: (m: string) => void,
): Promise<NonNullable<ScaleResults['retention']>> {
  log(`scale: retention job (REQUEST_LOG_RETENTION_DAYS=${SCALE_RETENTION_DAYS}) on the empty database`);
  const empty = await runOnce(sides.empty, log).catch(failed(log));
  log(`scale: retention job on the seeded database, the hot path at c=50 meanwhile`);
  const seeded = await runOnce(sides.seeded, log).catch(failed(log));
  return { days: SCALE_RETENTION_DAYS, batchSize: RETENTION_BATCH, empty: empty.run, seeded: seeded.run, ...(seeded.hotPath ? { hotPathDuring: seeded.hotPath } : {}) };
}

/** A run that failed (a statement past the timeout, a lock not had in 5 s) is a result too: the gateway's next tick would retry. */
const failed = (log: (m: string) => void) => (error: Error) => {
  log(`scale: the retention job failed: ${error.message}`);
  return { run: { failed: error.message }, hotPath: undefined };
};

async function runOnce(side: RetentionSide, log: (m: string) => void): Promise<{ run: RetentionRun | { failed: string }; hotPath?: NonNullable<ScaleResults['retention']>['hotPathDuring'] }> {
  // The job's own connections, as the gateway's: a statement past the query timeout fails.
  const db = knexPkg.knex({
    client: 'pg',
    connection: side.url,
    pool: { min: 0, max: 2, afterCreate: (c: { query(sql: string, done: (e: Error | null) => void): void }, done: (e: Error | null, c: unknown) => void) => c.query(`set statement_timeout = ${QUERY_TIMEOUT_MS}`, (e) => done(e, c)) },
  });
  try {
    // Rows the job may remove and entries it must keep: those written before the job (the hot path
    // meanwhile adds its own to both tables); 10 s back, so every transaction counted has ended.
    const { rows: at } = await db.raw<{ rows: Array<{ cutoff: Date }> }>(`select now() - interval '10 seconds' as cutoff`);
    const cutoff = at[0]!.cutoff;
    const before = await counts(db, cutoff);
    const statements = timeStatements(db);
    const upkeep = createRequestLogUpkeep({
      db,
      logger: createLogger('info', { write: (line: string) => log(`scale: upkeep said ${line.trim()}`) }),
      retentionDays: SCALE_RETENTION_DAYS,
      once: leaseOf(db, { ...REQUEST_LOG_UPKEEP_LEASE, holder: 'bench-scale' }),
    });
    const started = performance.now();
    const job = upkeep.run();
    const samples = side.load ? keepLoaded(side.load, job) : undefined;
    const result = await job;
    const seconds = (performance.now() - started) / 1000;
    if (result === 'skipped') throw new Error('the retention job was skipped: another holder has its lease (the scale gateways run with REQUEST_LOG_UPKEEP=false)');
    const after = await counts(db, cutoff);
    const removed = before.logRows - after.logRows;
    const batchSeconds = statements.seconds.batches;
    const run: RetentionRun = {
      seconds: round3(seconds),
      partitionsDropped: result.partitionsDropped,
      rowsInDroppedPartitions: removed - result.rowsDeleted,
      dropSeconds: round3(statements.seconds.drops),
      rowsDeletedInBatches: result.rowsDeleted,
      batches: statements.batches,
      batchSeconds: round3(batchSeconds),
      batchRowsPerSecond: batchSeconds > 0 ? Math.round(result.rowsDeleted / batchSeconds) : 0,
      logRows: { before: before.logRows, after: after.logRows },
      journalEntries: { before: before.journal, after: after.journal },
    };
    const hot = samples && throughputRow({ ...(await samples), cpuMs: 0, dbCpuMs: 0 });
    return { run, ...(hot ? { hotPath: { requests: hot.requests, rps: hot.rps, p50: hot.p50, p99: hot.p99, errorRate: hot.errorRate } } : {}) };
  } finally {
    await db.destroy();
  }
}

/** c=50 on the side's gateway in short rounds until the job is done. */
async function keepLoaded(load: NonNullable<RetentionSide['load']>, job: Promise<unknown>): Promise<{ samples: RequestSample[]; elapsedMs: number }> {
  let done = false;
  void job.finally(() => (done = true)).catch(() => undefined);
  const pool = makePool(load.target, 50);
  const all = { samples: [] as RequestSample[], elapsedMs: 0 };
  try {
    while (!done) {
      const round = await closedLoop(pool, load.target, load.body, 50, 1000);
      all.samples.push(...round.samples);
      all.elapsedMs += round.elapsedMs;
    }
  } finally {
    await pool.close();
  }
  return all;
}

/** Seconds spent in the job's partition drops and in its batched deletes of request-log rows. */
function timeStatements(db: knexPkg.Knex): { seconds: { drops: number; batches: number }; batches: number } {
  const out = { seconds: { drops: 0, batches: 0 }, batches: 0 };
  const started = new Map<string, { at: number; kind: 'drops' | 'batches' | undefined }>();
  const kindOf = (sql: string) => (/^drop table/i.test(sql) ? 'drops' : /^with doomed as \(select id, created_at from request_logs/i.test(sql.trim()) ? 'batches' : undefined);
  db.on('query', (q: { __knexQueryUid: string; sql: string }) => started.set(q.__knexQueryUid, { at: performance.now(), kind: kindOf(q.sql) }));
  const end = (_: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    started.delete(q.__knexQueryUid);
    if (!s?.kind) return;
    out.seconds[s.kind] += (performance.now() - s.at) / 1000;
    if (s.kind === 'batches') out.batches++;
  };
  db.on('query-response', end);
  db.on('query-error', end);
  return out;
}

/** The request log's rows and the journal's entries written before `cutoff` (exact counts; no timeout: seconds on 20 million entries). */
async function counts(db: knexPkg.Knex, cutoff: Date): Promise<{ logRows: number; journal: number }> {
  return db.transaction(async (trx) => {
    await trx.raw('set local statement_timeout = 0');
    const { rows } = await trx.raw<{ rows: Array<{ log_rows: string; journal: string }> }>(
      `select (select count(*) from request_logs where created_at < ?) as log_rows, (select count(*) from ledger_entries where created_at < ?) as journal`,
      [cutoff, cutoff],
    );
    return { logRows: Number(rows[0]!.log_rows), journal: Number(rows[0]!.journal) };
  });
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
