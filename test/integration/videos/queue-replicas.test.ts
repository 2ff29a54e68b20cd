// Issue 25's required test of the queue: two gateways share a provider account with
// max_concurrent_tasks: 3. On PostgreSQL they are two gateway processes (src/main.ts, each with its
// own poller and pool); one is killed with SIGKILL mid-queue and started again. The embedded PGlite
// admits a single process, so there one gateway runs two pollers, and one of them is stopped
// mid-queue and replaced. Either way: the simulated account never runs more than 3 tasks at once,
// a customer arriving behind another's long queue is served within a round, a task cancelled
// while waiting releases its hold at once and never reaches the provider, and nothing is lost.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { videoTaskKind } from '../../../src/domain/videos/kind.ts';
import { createLogger } from '../../../src/logger.ts';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { taskKinds } from '../../../src/tasks/kind.ts';
import { createTaskWorker as createVideoWorker, type TaskWorker as VideoWorker } from '../../../src/tasks/worker.ts';
import { CHILD_ADMIN_TOKEN, startChildGateway, type ChildGateway } from '../../helpers/child-gateway.ts';
import { getTestDatabase, resetDatabase, testDatabaseUrlInUse, usingPostgres } from '../../helpers/db.ts';
import { sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const LIMIT = 3;
const HEAVY = 15;

/** Two replicas as the test drives them: where to send requests, and one that can die and come back. */
interface Replicas {
  urls: [string, string];
  db: Knex;
  adminToken: string;
  /** Kills replica 0 (mid-queue) ... */
  kill(): Promise<void>;
  /** ... and starts it again. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

function sharedCatalogue(ark: ArkSimulator): string {
  return sampleCatalogueWith({
    providers: [testProvider('ark-shared', 'ark-video', ark.baseUrl, 'ARK_SHARED_KEY', { max_concurrent_tasks: LIMIT })],
    models: [seedanceModel('shared/seedance', 'ark-shared')],
  });
}

/** PostgreSQL: two gateway processes polling (VIDEO_POLLER=true), replica 0 killed with SIGKILL and started again. */
async function processReplicas(cataloguePath: string): Promise<Replicas> {
  const db = await getTestDatabase();
  await resetDatabase(db);
  const env = {
    DATABASE_URL: testDatabaseUrlInUse(),
    CATALOGUE_PATH: cataloguePath,
    ARK_SHARED_KEY: 'ark-shared-key',
    VIDEO_POLLER: 'true',
    VIDEO_POLL_INTERVAL_MS: '100',
  };
  const start = () => startChildGateway({ env });
  const children: ChildGateway[] = await Promise.all([start(), start()]);
  return {
    urls: [children[0]!.url, children[1]!.url],
    db,
    adminToken: CHILD_ADMIN_TOKEN,
    async kill() {
      children[0]!.child.kill('SIGKILL');
      expect(await children[0]!.exited).to.equal('SIGKILL');
    },
    async restart() {
      children[0] = await start();
    },
    async close() {
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
      await Promise.all(children.map((c) => c.exited));
    },
  };
}

/** PGlite: one gateway, two pollers in its process; poller 0 is stopped mid-queue and replaced. */
async function pollerReplicas(cataloguePath: string): Promise<Replicas> {
  const gateway: TestGateway = await startTestGateway({ cataloguePath, env: { VIDEO_POLL_INTERVAL_MS: '100' } });
  const poller = (): VideoWorker =>
    createVideoWorker({
      db: gateway.db,
      ledger: gateway.services.ledger,
      logger: createLogger('silent'),
      catalogue: gateway.services.catalogue,
      kinds: taskKinds(videoTaskKind),
      pollIntervalMs: 100,
      metrics: gateway.services.metrics,
    });
  const loop = (worker: VideoWorker) => {
    const stop = new AbortController();
    const running = (async () => {
      while (!stop.signal.aborted) if ((await worker.drain(stop.signal)) === 0) await new Promise((r) => setTimeout(r, 50));
    })();
    return { stop: async () => (stop.abort(), running) };
  };
  const loops = [loop(poller()), loop(poller())];
  return {
    urls: [gateway.url, gateway.url],
    db: gateway.db,
    adminToken: gateway.adminToken,
    kill: () => loops[0]!.stop(),
    async restart() {
      loops[0] = loop(poller());
    },
    async close() {
      await Promise.all(loops.map((l) => l.stop()));
      await gateway.close();
    },
  };
}

describe(`the queue with two gateways on one provider account (${usingPostgres() ? 'PostgreSQL, 2 processes, one SIGKILLed and restarted' : 'PGlite, 2 pollers in one process'})`, function () {
  this.timeout(300_000);
  let ark: ArkSimulator;
  let replicas: Replicas;

  before(async () => {
    process.env.ARK_SHARED_KEY = 'ark-shared-key';
    ark = await startArkSimulator({ queuedMs: 100, runningMs: 1_500 });
    const cataloguePath = sharedCatalogue(ark);
    replicas = usingPostgres() ? await processReplicas(cataloguePath) : await pollerReplicas(cataloguePath);
  });
  after(async () => {
    await replicas?.close();
    await ark?.close();
    delete process.env.ARK_SHARED_KEY;
  });

  const admin = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(replicas.urls[1] + pathname, {
      method,
      headers: { authorization: `Bearer ${replicas.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  async function customer(name: string) {
    const created = await admin('POST', '/admin/v1/customers', { name });
    const key = (await admin('POST', `/admin/v1/customers/${created.body.id}/api-keys`, {})).body.key as string;
    await admin('POST', `/admin/v1/customers/${created.body.id}/credits`, { amount: '50.00', reference: `fund-${name}` });
    const call = async (replica: 0 | 1, method: string, pathname: string, body?: unknown) => {
      const response = await fetch(replicas.urls[replica] + pathname, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const create = async (replica: 0 | 1, prompt: string) => {
      const answer = await call(replica, 'POST', '/v1/videos', { model: 'shared/seedance', prompt, seconds: 5, resolution: '720p' });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
      return answer.body.task_id as string;
    };
    const wallet = async () => (await admin('GET', `/admin/v1/customers/${created.body.id}/wallet`)).body;
    return { id: created.body.id as string, call, create, wallet };
  }
  const prompts = () => ark.submissions.map((s) => (s.content as Array<{ text?: string }>)[0]!.text!);
  const waitFor = async (what: string, done: () => Promise<boolean> | boolean, ms = 120_000) => {
    const deadline = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const count = async (statuses: string[]) => (await replicas.db('video_tasks').whereIn('status', statuses)).length;

  it('holds the limit across replicas, serves a newcomer within a round, cancels while waiting, and loses nothing across a restart', async () => {
    const heavy = await customer('heavy');
    const light = await customer('light');
    const canceller = await customer('canceller');

    // heavy's tasks arrive through both replicas at once: LIMIT go out, the rest wait.
    const heavyTasks = await Promise.all(Array.from({ length: HEAVY }, (_, i) => heavy.create((i % 2) as 0 | 1, `heavy ${i}`)));
    // Each waiting task shows its own place (a task sent meanwhile shows none).
    const listed = (await heavy.call(1, 'GET', '/v1/videos?limit=100')).body.data as Array<{ task_status: string; queue_position: number | null }>;
    const places = listed.map((t) => t.queue_position).filter((p): p is number => p !== null);
    expect(new Set(places).size).to.equal(places.length);
    expect(Math.max(...places)).to.be.within(HEAVY - 2 * LIMIT, HEAVY - LIMIT);
    const held = await heavy.wallet(); // held at acceptance; the first ones may have been charged already
    expect(Number(held.reserved) + Number(held.debits)).to.equal(HEAVY * 0.5);

    // A task cancelled while it waits: its hold goes at once, and the provider never sees it.
    const doomed = await canceller.create(0, 'cancelled while waiting');
    expect((await canceller.call(0, 'GET', `/v1/videos/${doomed}`)).body.queue_position).to.be.a('number');
    const cancelled = await canceller.call(1, 'DELETE', `/v1/videos/${doomed}`);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body).to.include({ task_status: 'cancelled', queue_position: null });
    expect(await canceller.wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });

    // light arrives behind heavy's long queue and is served within a round.
    const heavyWaiting = await replicas.db('video_tasks').where({ customer_id: heavy.id, status: 'waiting' }).count<{ n: unknown }[]>('* as n');
    expect(Number(heavyWaiting[0]!.n)).to.be.at.least(2 * LIMIT); // first come, first served would send all of them first
    const before = ark.submissions.length;
    const lightTasks = [await light.create(1, 'light 0'), await light.create(0, 'light 1')];
    await waitFor('light served', () => prompts().includes('light 1'));
    const sentAfter = prompts().slice(before);
    // At most LIMIT tasks taken before light's arrived, then light's first turn, one of heavy's, light's second.
    expect(sentAfter.indexOf('light 0')).to.be.below(LIMIT + 1);
    expect(sentAfter.indexOf('light 1')).to.be.below(LIMIT + 3);

    // Mid-queue, replica 0 dies (PostgreSQL: SIGKILL, whatever it held) and comes back.
    expect(await count(['waiting'])).to.be.greaterThan(0);
    await replicas.kill();
    await replicas.restart();

    await waitFor('every task ended', async () => (await count(['waiting', 'submitting', 'queued', 'in_progress'])) === 0, 200_000);
    expect(ark.peakActive).to.equal(LIMIT);
    expect(prompts()).to.not.include('cancelled while waiting');

    // Nothing lost: every task completed, or (a submission the killed process could not confirm) is in review with its hold.
    const tasks = await replicas
      .db('video_tasks')
      .whereIn('id', [...heavyTasks, ...lightTasks])
      .select('id', 'status', 'error');
    const review = tasks.filter((t) => t.status === 'review');
    for (const t of review) expect(t.error.code).to.equal('submission_unconfirmed');
    expect(review.length).to.be.at.most(LIMIT);
    expect(tasks.filter((t) => t.status === 'completed')).to.have.length(HEAVY + 2 - review.length);
    const resolutions = await replicas.db('ledger_entries').whereIn('kind', ['settle', 'release']).select('reservation_ref');
    expect(resolutions).to.have.length(HEAVY + 2 + 1 - review.length);
    expect(new Set(resolutions.map((r) => r.reservation_ref)).size).to.equal(resolutions.length);
    const heldForReview = review.filter((t) => heavyTasks.includes(t.id)).length;
    const heavyCompleted = tasks.filter((t) => t.status === 'completed' && heavyTasks.includes(t.id)).length;
    expect(await heavy.wallet()).to.include({ reserved: (heldForReview * 0.5).toFixed(6), debits: (heavyCompleted * 0.5).toFixed(6) });
    expect((await admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
    // Never sent twice (a task whose submission the killed process may have cut short is in review, never resent).
    const sent = prompts().filter((p) => p.startsWith('heavy') || p.startsWith('light'));
    expect(new Set(sent).size).to.equal(sent.length);
    expect(sent.length).to.be.within(HEAVY + 2 - review.length, HEAVY + 2);
  });
});
