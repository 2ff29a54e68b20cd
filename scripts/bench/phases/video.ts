// Video poller: tasks in flight on the simulated Ark upstream, then all made due at once and
// settled by the gateway's own poller.
// - PostgreSQL: the bench makes them due with one UPDATE (the gateway's tick runs every second)
//   and measures the idle tick (the production processBatch with nothing due, statements counted,
//   EXPLAIN ANALYZE of its claim query) on its own connection.
// - Embedded: its socket takes exactly one connection (the gateway's), so the bench never opens
//   one. The tasks are created by a gateway with its poller off and a 100 ms poll interval; it is
//   stopped, and a gateway with the poller on is started on the same DATA_DIR; task counts by
//   status come from GET /metrics. No idle tick.
import { performance } from 'node:perf_hooks';
import knexPkg from 'knex';
import { makePool, type Target } from '../load.ts';
import type { Gateway } from '../processes.ts';
import type { VideoResults } from '../results.ts';
import { round2 } from '../summarise.ts';
import { measureIdleTick } from '../video-tick.ts';

const LIVE = ['submitting', 'queued', 'in_progress'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` POST /v1/videos from 50 workers; tasks whose upstream finishes at the first poll. */
async function createTasks(gateway: Gateway, count: number): Promise<{ failed: number; perSecond: number }> {
  const target: Target = { name: 'gateway', api: 'messages', origin: gateway.origin, headers: { authorization: `Bearer ${gateway.key}` }, model: 'bench/video' };
  const pool = makePool(target, 50);
  const body = JSON.stringify({ model: 'bench/video', prompt: 'A calm sea. [[sim queued_ms=0 running_ms=0]]', seconds: 5, resolution: '720p' });
  let next = 0;
  let failed = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next++ < count) {
          const res = await pool.request({ path: '/v1/videos', method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body });
          await res.body.arrayBuffer();
          if (res.statusCode !== 202) failed++;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { failed, perSecond: round2((count / (performance.now() - started)) * 1000) };
}

export async function postgresVideoPhase(gateway: Gateway, databaseUrl: string, count: number, idleTicks: number): Promise<VideoResults> {
  const created = await createTasks(gateway, count);
  const db = knexPkg.knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
  const countWhere = async (statuses: string[]) => Number((await db('video_tasks').whereIn('status', statuses).count<{ count: string }[]>('* as count'))[0]!.count);
  try {
    const live = await countWhere(['queued', 'in_progress']);
    const idleTick = await measureIdleTick(db, idleTicks);
    // Everything due now: the gateway's own poller (cron tick every second) drains it.
    const started = performance.now();
    await db('video_tasks').whereIn('status', ['queued', 'in_progress']).update({ next_poll_at: db.fn.now() });
    let remaining = live;
    const deadline = Date.now() + 600_000;
    while (remaining > 0 && Date.now() < deadline) {
      await sleep(100);
      remaining = await countWhere(LIVE);
    }
    const elapsedMs = performance.now() - started;
    const settled = await countWhere(['completed']);
    return {
      method: 'one UPDATE, then the gateway\'s own tick',
      tasks: count,
      createFailures: created.failed,
      createdPerSecond: created.perSecond,
      liveBeforeDue: live,
      settled,
      review: await countWhere(['review']),
      remaining,
      settleSeconds: round2(elapsedMs / 1000),
      settledPerSecond: round2((settled / elapsedMs) * 1000),
      idleTick,
    };
  } finally {
    await db.destroy();
  }
}

/** Video tasks by status, from the gateway's own gauges. */
async function taskCounts(gateway: Gateway): Promise<Record<string, number>> {
  const metrics = await gateway.admin('GET', '/metrics');
  if (metrics.status !== 200) throw new Error(`GET /metrics answered ${metrics.status}`);
  const counts: Record<string, number> = {};
  for (const match of String(metrics.body).matchAll(/^gateway_video_tasks\{status="(\w+)"\} (\d+)/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

const sum = (counts: Record<string, number>, statuses: string[]) => statuses.reduce((total, s) => total + (counts[s] ?? 0), 0);

/**
 * `restart(env)` stops the running gateway (SIGTERM) and starts one on the same DATA_DIR and
 * customer with `env`; the last gateway started is returned for the ledger check.
 */
export async function embeddedVideoPhase(count: number, restart: (env: Record<string, string>) => Promise<Gateway>): Promise<{ video: VideoResults; gateway: Gateway }> {
  const creator = await restart({ VIDEO_POLLER: 'false', VIDEO_POLL_INTERVAL_MS: '100' });
  const created = await createTasks(creator, count);
  const live = sum(await taskCounts(creator), ['queued', 'in_progress']);
  const poller = await restart({ VIDEO_POLLER: 'true', VIDEO_POLL_INTERVAL_MS: '100' });
  // From the moment it serves; whatever its poller settled while starting is left out of the rate.
  const started = performance.now();
  const first = await taskCounts(poller);
  let counts = first;
  const deadline = Date.now() + 600_000;
  while (sum(counts, LIVE) > 0 && Date.now() < deadline) {
    await sleep(500);
    counts = await taskCounts(poller);
  }
  const elapsedMs = performance.now() - started;
  const settledInWindow = (counts.completed ?? 0) - (first.completed ?? 0);
  return {
    gateway: poller,
    video: {
      method: 'created with the poller off, then a gateway with it on started on the same data',
      tasks: count,
      createFailures: created.failed,
      createdPerSecond: created.perSecond,
      liveBeforeDue: live,
      settled: counts.completed ?? 0,
      review: counts.review ?? 0,
      remaining: sum(counts, LIVE),
      settleSeconds: round2(elapsedMs / 1000),
      settledPerSecond: round2((settledInWindow / elapsedMs) * 1000),
    },
  };
}
