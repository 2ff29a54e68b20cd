// The cost of one poller tick with nothing due: the production worker's drain (what the tick runs) on its own
// connection, counting the statements it sends, timing it, and asking PostgreSQL for the plan of
// the claim query (inside a rolled-back transaction, as EXPLAIN ANALYZE runs the UPDATE).
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { CatalogueStore } from '../../src/catalogue/store.ts';
import { createLedger } from '../../src/ledger/service.ts';
import { createLogger } from '../../src/logger.ts';
import { taskKinds } from '../../src/tasks/kind.ts';
import { CLAIM_DUE_SQL } from '../../src/tasks/repo.ts';
import { createTaskWorker } from '../../src/tasks/worker.ts';

export interface IdleTick {
  ticks: number;
  queriesPerTick: number;
  meanMs: number;
  p99Ms: number;
  /** Plan nodes of the claim query, outermost first, e.g. "Index Scan using video_tasks_due". */
  plan: string[];
  planExecutionMs: number;
  usesIndex: boolean;
}

export async function measureIdleTick(db: Knex, ticks: number): Promise<IdleTick> {
  // An idle tick never reaches the catalogue: nothing is claimed, nothing is polled.
  const catalogue = { current: () => ({ providers: new Map() }) } as unknown as CatalogueStore;
  const worker = createTaskWorker({ db, ledger: createLedger({ db }), logger: createLogger('silent'), catalogue, kinds: taskKinds() });
  let queries = 0;
  const count = () => void queries++;
  db.on('query', count);
  const times: number[] = [];
  try {
    await worker.drain(); // warm the connection and the plan cache
    queries = 0;
    for (let i = 0; i < ticks; i++) {
      const started = performance.now();
      const handled = await worker.drain();
      times.push(performance.now() - started);
      if (handled !== 0) throw new Error('the idle tick found due tasks; the measurement needs none due');
    }
  } finally {
    db.off('query', count);
  }
  const plan = await claimPlan(db);
  times.sort((a, b) => a - b);
  return {
    ticks,
    queriesPerTick: queries / ticks,
    meanMs: Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 1000) / 1000,
    p99Ms: Math.round(times[Math.ceil(times.length * 0.99) - 1]! * 1000) / 1000,
    plan: plan.nodes,
    planExecutionMs: plan.executionMs,
    usesIndex: plan.nodes.some((node) => /Index.*video_tasks_due/.test(node)),
  };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

async function claimPlan(db: Knex): Promise<{ nodes: string[]; executionMs: number }> {
  const trx = await db.transaction();
  try {
    const { rows } = await trx.raw<{ rows: Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }> }>(
      `explain (analyze, format json) ${CLAIM_DUE_SQL}`,
      [100, 60_000],
    );
    const [explained] = rows[0]!['QUERY PLAN'];
    const nodes: string[] = [];
    const walk = (node: PlanNode) => {
      nodes.push([node['Node Type'], node['Index Name'] ? `using ${node['Index Name']}` : node['Relation Name'] ? `on ${node['Relation Name']}` : ''].join(' ').trim());
      node.Plans?.forEach(walk);
    };
    walk(explained!.Plan);
    return { nodes, executionMs: explained!['Execution Time'] };
  } finally {
    await trx.rollback();
  }
}
