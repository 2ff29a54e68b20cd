import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { videoTaskKind } from '../../../src/domain/videos/kind.ts';
import { createLogger } from '../../../src/logger.ts';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { taskKinds } from '../../../src/tasks/kind.ts';
import { claimDue } from '../../../src/tasks/repo.ts';
import { createTaskWorker as createVideoWorker } from '../../../src/tasks/worker.ts';
import { testDatabaseUrlInUse, usingPostgres } from '../../helpers/db.ts';
import { sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const TASKS = 300;

// On PostgreSQL: three separate gateway processes poll the same tasks and one is killed with
// SIGKILL mid-run. The embedded PGlite admits a single process, so there the three pollers share
// the process, and a fourth claims a batch and "dies" holding it (its lease must expire).
describe(`video poller on several replicas (${usingPostgres() ? 'PostgreSQL, 3 processes, one SIGKILLed' : 'PGlite, 3 pollers in one process'})`, function () {
  this.timeout(180_000);
  let gateway: TestGateway;
  let ark: ArkSimulator;
  let key: string;
  let customerId: string;
  let cataloguePath: string;
  const children: ChildProcess[] = [];

  before(async () => {
    ark = await startArkSimulator({ queuedMs: 100, runningMs: 400 });
    cataloguePath = sampleCatalogueWith({
      providers: [testProvider('ark-shared', 'ark-video', ark.baseUrl, 'ARK_SHARED_KEY')],
      models: [seedanceModel('shared/seedance', 'ark-shared', { cancellable: true })],
    });
    process.env.ARK_SHARED_KEY = 'ark-test-key';
    gateway = await startTestGateway({ cataloguePath });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1000.00', reference: 'fund' });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await gateway?.close();
    await ark?.close();
    delete process.env.ARK_SHARED_KEY;
  });

  it('settles or releases every task exactly once, and reconciliation passes', async () => {
    for (let i = 0; i < TASKS; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, TASKS - i) }, async (_, j) => {
          const n = i + j;
          const response = await fetch(`${gateway.url}/v1/videos`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'shared/seedance', prompt: `task ${n}${n % 10 === 0 ? ' [[sim fail]]' : ''}`, seconds: 5, resolution: '720p' }),
          });
          expect(response.status).to.equal(202);
        }),
      );
    }
    await gateway.db('video_tasks').update({ next_poll_at: new Date() });

    if (usingPostgres()) {
      for (let i = 0; i < 3; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT_DIR, 'test/helpers/video-worker-process.ts')], {
          cwd: ROOT_DIR,
          env: { ...process.env, DATABASE_URL: testDatabaseUrlInUse(), CATALOGUE_PATH: cataloguePath },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
      }
      await Promise.all(children.map((c) => new Promise((resolve) => c.stdout!.once('data', resolve))));
      await new Promise((r) => setTimeout(r, 700));
      children[0]!.kill('SIGKILL'); // mid-run, possibly holding claimed tasks
    } else {
      await claimDue(gateway.db, 20, 1500); // a poller that claims a batch and dies holding it
      const pollers = Array.from({ length: 3 }, () =>
        createVideoWorker({
          db: gateway.db,
          ledger: gateway.services.ledger,
          logger: createLogger('silent'),
          catalogue: gateway.services.catalogue,
          kinds: taskKinds(videoTaskKind),
          pollIntervalMs: 50,
          leaseMs: 1500,
          batchSize: 20,
        }),
      );
      let done = false;
      const loops = pollers.map(async (poller) => {
        while (!done) if ((await poller.drain()) === 0) await new Promise((r) => setTimeout(r, 20)); // as the tick does
      });
      await waitForTerminal();
      done = true;
      await Promise.all(loops);
    }
    await waitForTerminal();

    const tasks = await gateway.db('video_tasks').select('id', 'status');
    const statuses = tasks.reduce((acc: Record<string, number>, t) => ({ ...acc, [t.status]: (acc[t.status] ?? 0) + 1 }), {});
    expect(statuses).to.deep.equal({ completed: TASKS - TASKS / 10, failed: TASKS / 10 });
    const resolutions = await gateway.db('ledger_entries').whereIn('kind', ['settle', 'release']).select('reservation_ref', 'kind');
    expect(resolutions).to.have.length(TASKS);
    expect(new Set(resolutions.map((r) => r.reservation_ref)).size).to.equal(TASKS);
    const wallet = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    expect(wallet).to.include({ reserved: '0.000000', debits: `${((TASKS - TASKS / 10) * 0.5).toFixed(0)}.000000` });
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
  });

  async function waitForTerminal(): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const live = (await gateway.db('video_tasks').whereIn('status', ['submitting', 'queued', 'in_progress'])).length;
      if (Number(live) === 0) return;
      if (Date.now() > deadline) throw new Error(`${live} tasks still live`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
});
