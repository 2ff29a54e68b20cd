// A third task kind costs one kind file (image-kind.ts, registered here and nowhere in src/): the
// engine takes its tasks through accept (row and hold in one transaction), submit, the gateway's
// queue when the provider is busy, polls, settlement, and review resolved by an operator through
// the admin API, on a real database and a simulated upstream over real HTTP.
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.ts';
import { serveJson, type JsonServer } from '../../../src/sandbox/json-server.ts';
import { randomBase62 } from '../../../src/shared/ids.ts';
import { acceptTask } from '../../../src/tasks/accept.ts';
import type { TaskContext } from '../../../src/tasks/context.ts';
import { taskKinds } from '../../../src/tasks/kind.ts';
import { submitTask } from '../../../src/tasks/submit.ts';
import { createTaskWorker, type TaskWorker } from '../../../src/tasks/worker.ts';
import { sampleCatalogueWith, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { imageTaskKind } from './image-kind.ts';

const PER_IMAGE = 100_000n; // 0.10 an image

/** Image jobs: running at the first poll, done at the second; "[mute]" finishes without its count, "[busy]" is refused once with a 429. */
async function startImageUpstream(): Promise<JsonServer & { calls: string[] }> {
  const jobs = new Map<string, { prompt: string; n: number; polls: number }>();
  const calls: string[] = [];
  let refusedBusy = false;
  const server = await serveJson((req) => {
    calls.push(`${req.method} ${req.path}`);
    if (req.headers.authorization !== 'Bearer image-upstream-key') return { status: 401, body: { error: 'unauthorized' } };
    if (req.method === 'POST' && req.path === '/images/jobs') {
      const { prompt, n } = req.body as { prompt: string; n: number };
      if (prompt.includes('[busy]') && !refusedBusy) {
        refusedBusy = true;
        return { status: 429, body: { error: { code: 'rate_limited', message: 'Too many jobs.' } } };
      }
      const id = `img_${jobs.size + 1}`;
      jobs.set(id, { prompt, n, polls: 0 });
      return { status: 200, body: { id, status: 'queued' } };
    }
    const job = jobs.get(/^\/images\/jobs\/(.+)$/.exec(req.path)?.[1] ?? '');
    if (req.method !== 'GET' || !job) return { status: 404, body: { error: 'not found' } };
    job.polls++;
    if (job.polls === 1) return { status: 200, body: { status: 'running' } };
    return { status: 200, body: job.prompt.includes('[mute]') ? { status: 'succeeded' } : { status: 'succeeded', images: job.n } };
  });
  return Object.assign(server, { calls });
}

describe('a third task kind costs one kind file (image jobs, registered by this test)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let upstream: Awaited<ReturnType<typeof startImageUpstream>>;
  let tasks: TaskContext;
  let worker: TaskWorker;
  let customer: { customerId: string; keyId: string; key: string };

  beforeEach(async () => {
    upstream = await startImageUpstream();
    process.env.IMAGE_UPSTREAM_KEY = 'image-upstream-key';
    const cataloguePath = sampleCatalogueWith({
      providers: [testProvider('images-upstream', 'openai-chat', upstream.baseUrl, 'IMAGE_UPSTREAM_KEY')],
    });
    gateway = await startTestGateway({ cataloguePath });
    customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const { db, services } = gateway;
    tasks = { db, ledger: services.ledger, logger: createLogger('silent'), catalogue: services.catalogue, kinds: taskKinds(imageTaskKind), pollMs: 20 };
    worker = createTaskWorker({ ...tasks, pollIntervalMs: 20 });
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
    await upstream.close();
    delete process.env.IMAGE_UPSTREAM_KEY;
  });

  /** What the product's create would do: the row and its hold, then the submission (unless it waits). */
  async function create(prompt: string, n: number) {
    const id = `vt_${randomBase62(24)}`;
    const provider = tasks.catalogue.current().providers.get('images-upstream')!;
    const accepted = await acceptTask(
      tasks,
      {
        id,
        kind: 'image',
        customerId: customer.customerId,
        keyId: customer.keyId,
        modelId: 'images/test-1',
        provider,
        upstreamModel: 'image-test-1',
        request: { prompt, n },
        price: { per_image: PER_IMAGE.toString(), currency: 'USD' },
        priceVersionId: 0n, // priced by the kind itself: no catalogue model
        requestHash: id,
        cancellable: false,
      },
      { bound: { amount: BigInt(n) * PER_IMAGE }, purpose: { image_task_id: id, key_id: customer.keyId } },
    );
    if (!accepted.accepted) throw new Error(`not accepted: ${accepted.reason}`);
    const sent = accepted.waits ? undefined : await submitTask(tasks, accepted.task, provider);
    return { id, sent };
  }
  const row = async (id: string) => gateway.db('video_tasks').where({ id }).first();
  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customer.customerId}/wallet`)).body;
  /** Runs the poller until the task leaves the live and waiting statuses (within 10 s); the row then. */
  async function finish(id: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await worker.processBatch();
      const task = await row(id);
      if (!['waiting', 'submitting', 'queued', 'in_progress'].includes(task.status)) return task;
      if (Date.now() > deadline) throw new Error(`task still ${task.status} after 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('submit, poll, settle: held with its row, sent once, polled until done, charged once for the images delivered', async () => {
    const { id, sent } = await create('a calico cat', 3);
    expect(sent).to.deep.equal({ outcome: 'accepted', upstreamId: 'img_1' });
    expect(await row(id)).to.include({ kind: 'image', status: 'queued', upstream_task_id: 'img_1' });
    expect(await wallet()).to.include({ reserved: '0.300000', debits: '0.000000' });

    const done = await finish(id);
    expect(done).to.include({ status: 'completed', upstream_status: 'succeeded', progress: 100 });
    expect(String(done.billed_amount)).to.equal('300000');
    expect(upstream.calls).to.deep.equal(['POST /images/jobs', 'GET /images/jobs/img_1', 'GET /images/jobs/img_1']);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.300000' });
    const entries = await gateway.db('ledger_entries').where({ reservation_ref: id }).orderBy('id').select('kind', 'amount');
    expect(entries.map((e) => [e.kind, String(e.amount)])).to.deep.equal([
      ['reserve', '300000'],
      ['settle', '300000'],
    ]);
    await worker.processBatch(); // nothing more to do: settled once
    expect(await gateway.db('ledger_entries').where({ reservation_ref: id })).to.have.length(2);
  });

  it('review: done without a count, the hold waits for an operator, who settles it through the admin API as any task', async () => {
    const { id } = await create('a dog [mute]', 2);
    const held = await finish(id);
    expect(held).to.include({ status: 'review' });
    expect(held.error).to.deep.equal({ code: 'no_usage', message: 'The provider did not say how many images it made.' });
    expect(await wallet()).to.include({ reserved: '0.200000', debits: '0.000000' });

    const shown = await gateway.admin('GET', `/admin/v1/video-tasks?status=review`);
    expect(shown.body.data.map((t: any) => t.id)).to.deep.equal([id]);
    const resolved = await gateway.admin('POST', `/admin/v1/video-tasks/${id}/resolve`, {
      action: 'settle',
      amount: '0.15',
      actor: 'ops',
      reason: 'one image and a half',
    });
    expect(resolved.status).to.equal(200);
    expect(resolved.body).to.include({ status: 'completed', billed_amount: '0.150000' });
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.150000' });
    // A customer's video endpoints show only video tasks.
    const mine = await fetch(`${gateway.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${customer.key}` } });
    expect(mine.status).to.equal(404);
  });

  it("the provider busy (429): the task waits in the gateway's queue and the dispatcher sends it from its row once the pause ends", async () => {
    const { id, sent } = await create('a fox [busy]', 1);
    expect(sent).to.deep.equal({ outcome: 'requeued', scope: 'account' }); // nothing known of the provider yet: the account's
    expect(await row(id)).to.include({ status: 'waiting', upstream_task_id: null });
    const done = await finish(id);
    expect(done).to.include({ status: 'completed', upstream_task_id: 'img_1' });
    expect(upstream.calls.filter((c) => c.startsWith('POST'))).to.have.length(2);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.100000' });
  });
});
