// The scale phase (`npm run bench -- --scale`, issue 38, 3): two gateways on PostgreSQL side by
// side, one on an empty database and one on a database seeded with 10 million request-log rows and
// 20 million journal entries across 10,000 customers (scripts/bench/scale-seed.ts; a tenth of that
// with --quick), measured in interleaved rounds: the request list's first and deep pages, receipts,
// the usage report, the export's rows per second, and the hot path at c=50 (throughput, and the
// database's transactions, rows written and CPU time per request from pg_stat_database and /proc);
// last, as it removes what the reads read, the request log's retention job on each side
// (scripts/bench/scale-retention.ts).
import knexPkg from 'knex';
import { closedLoop, makePool, percentile, requestBody } from '../load.ts';
import { postgresCpuMeter } from '../procfs.ts';
import type { Gateway } from '../processes.ts';
import type { ScaleResults, ScaleTiming } from '../results.ts';
import { measureRetention } from '../scale-retention.ts';
import { seedHistory } from '../scale-seed.ts';
import { throughputRow, type ThroughputRaw } from '../summarise.ts';
import { targetsFor } from '../targets.ts';
import type { Upstream } from '../processes.ts';

export interface ScaleSide {
  gateway: Gateway;
  url: string;
}

const SIDES = ['empty', 'seeded'] as const;
type Side = (typeof SIDES)[number];

export async function scalePhase(sides: Record<Side, ScaleSide>, upstream: Upstream, options: { requests: number; quick: boolean; log: (m: string) => void }): Promise<ScaleResults> {
  const { log } = options;
  const dbs = { empty: knexPkg.knex({ client: 'pg', connection: sides.empty.url, pool: { min: 0, max: 2 } }), seeded: knexPkg.knex({ client: 'pg', connection: sides.seeded.url, pool: { min: 0, max: 2 } }) };
  try {
    const keyId = (await dbs.seeded('api_keys').where({ customer_id: sides.seeded.gateway.customerId }).first('id')).id as string;
    const seed = await seedHistory(dbs.seeded, { requests: options.requests, customerId: sides.seeded.gateway.customerId, keyId }, log);
    log(`scale: seeded in ${seed.seconds} s`);
    const tables = await tableSizes(dbs.seeded);

    // Some traffic first, so the empty side has a history of its own to page and to export.
    const targets = Object.fromEntries(SIDES.map((s) => [s, { ...targetsFor('messages', upstream, sides[s].gateway, undefined).find((t) => t.name === 'gateway')!, name: s }]));
    const pools = Object.fromEntries(SIDES.map((s) => [s, makePool(targets[s]!, 50)]));
    const body = requestBody(targets.empty!, 'Say hello. [[sim first_byte_ms=20]]');
    for (const s of SIDES) await closedLoop(pools[s]!, targets[s]!, body, 50, 3000);

    log('scale: hot path at c=50, side by side');
    const cpu = Object.fromEntries(SIDES.map((s) => [s, postgresCpuMeter(new URL(sides[s].url).pathname.slice(1))]));
    const raw = Object.fromEntries(SIDES.map((s) => [s, { samples: [], elapsedMs: 0, cpuMs: 0, dbCpuMs: 0 } as ThroughputRaw]));
    // pg_stat_database's counters: a backend reports its own at most once a second, and an idle
    // one within 10 s; read around all the rounds, each after a pause that lets them arrive.
    const settle = () => new Promise((r) => setTimeout(r, 11_000));
    await settle();
    const statsBefore = Object.fromEntries(await Promise.all(SIDES.map(async (s) => [s, await databaseStats(dbs[s])] as const)));
    for (let round = 0; round < (options.quick ? 2 : 4); round++) {
      // Each side first in every other round: whatever the machine does meanwhile falls on both.
      for (const s of round % 2 ? [...SIDES].reverse() : SIDES) {
        const dbBefore = cpu[s]!();
        const run = await closedLoop(pools[s]!, targets[s]!, body, 50, options.quick ? 3000 : 5000);
        raw[s]!.dbCpuMs += cpu[s]!() - dbBefore;
        raw[s]!.samples.push(...run.samples);
        raw[s]!.elapsedMs += run.elapsedMs;
      }
    }
    await settle();
    const counters = Object.fromEntries(
      await Promise.all(SIDES.map(async (s) => [s, await databaseStats(dbs[s])] as const).map(async (p) => {
        const [s, after] = await p;
        return [s, { xacts: after.xacts - statsBefore[s]!.xacts, rows: after.rows - statsBefore[s]!.rows }] as const;
      })),
    );
    await Promise.all(Object.values(pools).map((p) => p.close()));
    const hot = Object.fromEntries(SIDES.map((s) => [s, throughputRow(raw[s]!)])) as Record<Side, ReturnType<typeof throughputRow>>;
    const perRequest = (s: Side) => ({ transactions: round3(counters[s]!.xacts / hot[s].requests), rowsWritten: round3(counters[s]!.rows / hot[s].requests) });

    log('scale: reads, side by side');
    const reads = await measureReads(sides, dbs, options.quick ? 10 : 30);
    const retention = await measureRetention({ empty: { url: sides.empty.url }, seeded: { url: sides.seeded.url, load: { target: targets.seeded!, body } } }, log);
    return {
      requests: seed.logRows,
      journalEntries: seed.journalEntries,
      customers: 10_000,
      seedSeconds: seed.seconds,
      tables,
      reads,
      hotPath: { empty: hot.empty, seeded: hot.seeded, ratio: round3(hot.seeded.rps / hot.empty.rps), perRequest: { empty: perRequest('empty'), seeded: perRequest('seeded') } },
      retention,
    };
  } finally {
    await Promise.all(Object.values(dbs).map((db) => db.destroy()));
  }
}

async function measureReads(sides: Record<Side, ScaleSide>, dbs: Record<Side, knexPkg.Knex>, times: number): Promise<ScaleResults['reads']> {
  const picks = Object.fromEntries(await Promise.all(SIDES.map(async (s) => [s, await picksOf(dbs[s], sides[s].gateway.customerId)] as const)));
  const now = new Date();
  const day = (offset: number) => new Date(now.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
  const exportFrom = new Date(now.getTime() - 7 * 86_400_000).toISOString();
  const reads: Array<{ what: string; path: (s: Side, i: number) => string; rows?: true }> = [
    { what: 'GET /v1/requests (first page, 50 rows)', path: () => '/v1/requests?limit=50' },
    { what: 'GET /v1/requests (a deep page: after= the id 90% back in the customer\'s history)', path: (s) => `/v1/requests?limit=50&after=${picks[s]!.deepId}` },
    { what: 'GET /v1/requests/{id} (receipt)', path: (s, i) => `/v1/requests/${picks[s]!.requestIds[i % picks[s]!.requestIds.length]}` },
    { what: 'GET /v1/usage (this month so far)', path: () => '/v1/usage' },
    { what: 'GET /v1/usage (the last 30 days)', path: () => `/v1/usage?start_date=${day(29)}&end_date=${day(0)}` },
    // No `to`: up to the watermark, the hot path's own entries included (the empty side's only ones).
    { what: 'GET /v1/usage/export (CSV, the last 7 days)', path: () => `/v1/usage/export?format=csv&from=${exportFrom}`, rows: true },
  ];
  const out: ScaleResults['reads'] = [];
  for (const read of reads) {
    const timings: Record<Side, number[]> = { empty: [], seeded: [] };
    const lines: Record<Side, number> = { empty: 0, seeded: 0 };
    for (let i = 0; i < (read.rows ? Math.min(times, 3) : times); i++) {
      for (const s of SIDES) {
        const started = performance.now();
        const res = await fetch(sides[s].gateway.origin + read.path(s, i), { headers: { authorization: `Bearer ${sides[s].gateway.key}` } });
        const text = await res.text();
        timings[s].push(performance.now() - started);
        if (res.status !== 200) throw new Error(`${read.what} on the ${s} database: ${res.status} ${text.slice(0, 300)}`);
        if (read.rows) lines[s] = text.split('\n').filter((l) => l.length).length - 1; // less the CSV header
      }
    }
    const timing = (s: Side): ScaleTiming => ({
      p50Ms: round3(percentile(timings[s], 50)),
      maxMs: round3(Math.max(...timings[s])),
      ...(read.rows ? { rows: lines[s], rowsPerSecond: Math.round(lines[s] / (percentile(timings[s], 50) / 1000)) } : {}),
    });
    out.push({ what: read.what, empty: timing('empty'), seeded: timing('seeded') });
  }
  return out;
}

/** The customer's row 90% back in its history (for a deep page) and some of its request ids (receipts). */
async function picksOf(db: knexPkg.Knex, customerId: string): Promise<{ deepId: string; requestIds: string[] }> {
  const { rows } = await db.raw<{ rows: Array<{ n: string }> }>('select count(*) as n from request_logs where customer_id = ?', [customerId]);
  const n = Number(rows[0]!.n);
  const deep = await db('request_logs').where({ customer_id: customerId }).orderBy('id').offset(Math.floor(n / 10)).first('id');
  const offsets = Array.from({ length: 10 }, (_, i) => Math.floor((n * (i + 0.5)) / 10));
  const requestIds = await Promise.all(offsets.map(async (o) => (await db('request_logs').where({ customer_id: customerId }).orderBy('id').offset(o).first('request_id')).request_id as string));
  return { deepId: String(deep.id), requestIds };
}

/** Transactions ended and rows written in this database so far (pg_stat_database). */
async function databaseStats(db: knexPkg.Knex): Promise<{ xacts: number; rows: number }> {
  const { rows } = await db.raw<{ rows: Array<{ xacts: string; rows: string }> }>(
    `select xact_commit + xact_rollback as xacts, tup_inserted + tup_updated + tup_deleted as rows from pg_stat_database where datname = current_database()`,
  );
  return { xacts: Number(rows[0]!.xacts), rows: Number(rows[0]!.rows) };
}

async function tableSizes(db: knexPkg.Knex): Promise<ScaleResults['tables']> {
  const { rows } = await db.raw<{ rows: Array<{ name: string; rows: string; table_mb: string; indexes_mb: string }> }>(
    // The request log is partitioned by month: its partitions' sums (the parent holds no rows).
    `select t.name, sum(s.n_live_tup) as rows, sum(pg_table_size(s.relid)) / 1048576 as table_mb, sum(pg_indexes_size(s.relid)) / 1048576 as indexes_mb
       from (values ('request_logs'), ('ledger_entries')) t(name)
       join lateral (select t.name::regclass as relid union all select inhrelid from pg_inherits where inhparent = t.name::regclass) p on true
       join pg_stat_user_tables s on s.relid = p.relid
      group by t.name order by t.name`,
  );
  return rows.map((r) => ({ name: r.name, rows: Number(r.rows), tableMb: Math.round(Number(r.table_mb)), indexesMb: Math.round(Number(r.indexes_mb)) }));
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
