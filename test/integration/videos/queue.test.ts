// The gateway's queue in front of a provider account's concurrency limit, as customers see it:
// tasks beyond max_concurrent_tasks are accepted (202, held at the price of acceptance) and wait,
// show their place, go out in a fair order, can be cancelled while waiting with the hold released
// at once, wait again (with backoff) when the provider itself says its account is full, and fail
// with the hold released when they wait too long. Real HTTP to simulated Ark accounts.
import { expect } from 'chai';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { changeCatalogue, sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { exchangeProblems, videoCalls } from '../../helpers/videos.ts';

const ACCOUNTS = {
  one: { max_concurrent_tasks: 1 },
  two: { max_concurrent_tasks: 2 },
  open: {},
  tight: { max_concurrent_tasks: 1, max_queue_wait_seconds: 1 },
};
type Account = keyof typeof ACCOUNTS;

function catalogueFor(sims: Record<Account, ArkSimulator>): string {
  const accounts = Object.keys(ACCOUNTS) as Account[];
  return sampleCatalogueWith({
    providers: accounts.map((a) => testProvider(`ark-${a}`, 'ark-video', sims[a].baseUrl, 'ARK_QUEUE_KEY', ACCOUNTS[a])),
    models: accounts.map((a) => seedanceModel(`queue/${a}`, `ark-${a}`)),
  });
}

describe("the gateway's queue in front of a provider account's concurrency limit", function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let sims: Record<Account, ArkSimulator>;

  beforeEach(async () => {
    process.env.ARK_QUEUE_KEY = 'ark-queue-key';
    sims = {
      one: await startArkSimulator({ queuedMs: 30, runningMs: 200 }),
      two: await startArkSimulator({ queuedMs: 30, runningMs: 300 }),
      // Long enough that the second create reaches the account while the first still runs, however slow the machine.
      open: await startArkSimulator({ queuedMs: 30, runningMs: 1_500, accountLimit: 1 }),
      tight: await startArkSimulator({ queuedMs: 0, runningMs: 60_000 }),
    };
    gateway = await startTestGateway({ cataloguePath: catalogueFor(sims) });
  });
  afterEach(async () => {
    // Every exchange with the simulated accounts is on Ark's contract, refusals included.
    for (const sim of Object.values(sims)) for (const exchange of sim.exchanges) expect(exchangeProblems('ark-video-tasks', exchange)).to.deep.equal([]);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
    await gateway.close();
    await Promise.all(Object.values(sims).map((s) => s.close()));
    delete process.env.ARK_QUEUE_KEY;
  });

  async function customer(credit = '10.00') {
    const { key, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: credit, reference: `fund-${customerId}` });
    const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    return { key, customerId, v: videoCalls(gateway, key), wallet };
  }
  const create = async (v: ReturnType<typeof videoCalls>, model: string, prompt: string, headers: Record<string, string> = {}) => {
    const answer = await v.create({ model, prompt, seconds: 5, resolution: '720p' }, headers);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
    return answer.body.task_id as string;
  };
  /** Runs the poller (dispatch, then polls) until `done` or 30 s. */
  async function runUntil(done: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('the queue did not drain in 30 s');
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const liveTasks = async () => (await gateway.db('video_tasks').whereIn('status', ['waiting', 'submitting', 'queued', 'in_progress'])).length;
  const prompts = (sim: ArkSimulator) => sim.submissions.map((s) => (s.content as Array<{ text?: string }>)[0]!.text);

  it('beyond the limit: accepted and held, each task shows its place, and the places are the order the provider gets them, one customer at a time', async () => {
    const heavy = await customer();
    const light = await customer();
    const heavyTasks = [];
    for (let i = 1; i <= 6; i++) heavyTasks.push(await create(heavy.v, 'queue/one', `heavy ${i}`));
    const lightTasks = [await create(light.v, 'queue/one', 'light 1'), await create(light.v, 'queue/one', 'light 2')];
    // heavy 1 took the one slot and the others wait; light, never served yet, goes first in each round.
    expect(prompts(sims.one)).to.deep.equal(['heavy 1']);
    expect(await heavy.wallet()).to.include({ reserved: '3.000000', debits: '0.000000' });
    const shown = async (v: ReturnType<typeof videoCalls>) => (await v.list('?order=asc')).body.data.map((t: any) => [t.prompt, t.status, t.queue_position]);
    expect(await shown(heavy.v)).to.deep.equal([
      ['heavy 1', 'queued', null],
      ['heavy 2', 'queued', 2],
      ['heavy 3', 'queued', 4],
      ['heavy 4', 'queued', 5],
      ['heavy 5', 'queued', 6],
      ['heavy 6', 'queued', 7],
    ]);
    expect(await shown(light.v)).to.deep.equal([
      ['light 1', 'queued', 1],
      ['light 2', 'queued', 3],
    ]);
    expect((await light.v.get(lightTasks[0]!)).body).to.include({ task_status: 'queued', queue_position: 1, progress: 0 });

    await runUntil(async () => (await liveTasks()) === 0);
    expect(prompts(sims.one)).to.deep.equal(['heavy 1', 'light 1', 'heavy 2', 'light 2', 'heavy 3', 'heavy 4', 'heavy 5', 'heavy 6']);
    expect(sims.one.peakActive).to.equal(1);
    for (const id of [...heavyTasks, ...lightTasks]) expect((await gateway.admin('GET', `/admin/v1/video-tasks/${id}`)).body.status).to.equal('completed');
    expect(await heavy.wallet()).to.include({ reserved: '0.000000', debits: '3.000000' });
    expect(await light.wallet()).to.include({ reserved: '0.000000', debits: '1.000000' });
    const queued = (await gateway.admin('GET', `/admin/v1/video-tasks/${lightTasks[1]}`)).body;
    expect(queued.queued_at).to.be.a('string');
  });

  it('never more upstream at once than the limit, with two pollers dispatching the same queue; /metrics shows depth and waits', async () => {
    const customers = [await customer(), await customer(), await customer()];
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => create(customers[i % 3]!.v, 'queue/two', `task ${i}`)));
    const metrics = async () => (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).text();
    const before = await metrics();
    expect(before).to.match(/^gateway_video_queue_depth\{provider="ark-two"\} 10$/m);
    expect(before).to.match(/^gateway_video_queue_oldest_wait_seconds\{provider="ark-two"\} [0-9.]+$/m);
    expect(before).to.match(/^gateway_video_tasks\{status="waiting"\} 10$/m);
    const second = gateway.services.videoWorker;
    let done = false;
    const other = (async () => {
      while (!done) if ((await second.drain()) === 0) await new Promise((r) => setTimeout(r, 20));
    })();
    await runUntil(async () => (await liveTasks()) === 0);
    done = true;
    await other;
    expect(sims.two.peakActive).to.equal(2);
    expect(sims.two.submissions).to.have.length(12);
    const statuses = await gateway.db('video_tasks').whereIn('id', ids).select('status');
    expect(statuses.map((s) => s.status)).to.deep.equal(Array(12).fill('completed'));
    const after = await metrics();
    expect(after).to.not.match(/^gateway_video_queue_depth\{provider="ark-two"\}/m);
    expect(after).to.match(/^gateway_video_queue_wait_seconds_count\{provider="ark-two"\} 10$/m);
    for (const c of customers) expect(await c.wallet()).to.include({ reserved: '0.000000', debits: '2.000000' });
  });

  it('cancelled while waiting (even on a plan without cancel): the hold is released at once and nothing reaches the provider', async () => {
    const { v, wallet } = await customer();
    const running = await create(v, 'queue/one', 'first');
    const waiting = await create(v, 'queue/one', 'second');
    expect(await wallet()).to.include({ reserved: '1.000000' });
    const cancelled = await v.cancel(waiting);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body).to.include({ status: 'failed', task_status: 'cancelled', queue_position: null });
    expect(cancelled.body.error).to.include({ code: 'cancelled' });
    expect(await wallet()).to.include({ reserved: '0.500000', debits: '0.000000' });
    const released = await gateway.db('ledger_entries').where({ reservation_ref: waiting }).orderBy('id').select('kind', 'amount');
    expect(released.map((e) => [e.kind, String(e.amount)])).to.deep.equal([
      ['reserve', '500000'],
      ['release', '500000'],
    ]);
    expect((await v.cancel(waiting)).status).to.equal(409);
    expect((await v.cancel(running)).body.error.code).to.equal('cancel_not_supported'); // sent upstream: the plan decides
    await runUntil(async () => (await liveTasks()) === 0);
    expect(prompts(sims.one)).to.deep.equal(['first']);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.500000' });
  });

  it("the provider's own concurrency refusal puts the task in the queue with backoff, and it completes once there is room", async () => {
    const { v, wallet } = await customer();
    const first = await create(v, 'queue/open', 'first');
    const refused = await create(v, 'queue/open', 'second'); // the account (limit 1) answers 429 QuotaExceeded
    expect(sims.open.limitRefusals).to.equal(1);
    expect((await v.get(refused)).body).to.include({ status: 'queued', queue_position: 1, error: null });
    const pause = await gateway.db('video_provider_queues').where({ provider_id: 'ark-open' }).first();
    expect(pause.refusals).to.equal(1);
    // Paused for the first backoff step, the poll interval (VIDEO_POLL_INTERVAL_MS=100 in tests).
    expect(new Date(pause.paused_until).getTime() - new Date(pause.updated_at).getTime()).to.equal(100);
    // While the provider is paused a new task waits behind the others without a call to it.
    const third = await create(v, 'queue/open', 'third');
    expect(sims.open.limitRefusals).to.equal(1);
    expect((await v.get(third)).body.queue_position).to.equal(2);
    expect(await wallet()).to.include({ reserved: '1.500000' });
    await runUntil(async () => (await liveTasks()) === 0);
    for (const id of [first, refused, third]) expect((await v.get(id)).body.status).to.equal('completed');
    expect(prompts(sims.open)).to.deep.equal(['first', 'second', 'third']);
    expect(sims.open.peakActive).to.equal(1);
    // Backoff: the pause doubles from the poll interval (100 ms), so a second of waiting is a handful of tries.
    expect(sims.open.limitRefusals).to.be.within(2, 8);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '1.500000' });
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).text();
    expect(Number(/^gateway_video_queue_requeues_total\{provider="ark-open"\} (\d+)$/m.exec(metrics)?.[1])).to.equal(sims.open.limitRefusals);
    expect((await gateway.db('video_provider_queues').where({ provider_id: 'ark-open' }).first()).refusals).to.equal(0);
  });

  it('waited past max_queue_wait_seconds: failed with queue_timeout, the hold released, never sent', async () => {
    const { v, wallet } = await customer();
    await create(v, 'queue/tight', 'runs a minute');
    const late = await create(v, 'queue/tight', 'never runs');
    await new Promise((r) => setTimeout(r, 1_100));
    await gateway.services.videoWorker.processBatch();
    const task = (await v.get(late)).body;
    expect(task).to.include({ status: 'failed', task_status: 'failed', queue_position: null });
    expect(task.error.code).to.equal('queue_timeout');
    expect(task.error.message).to.include('nothing was charged');
    expect(await wallet()).to.include({ reserved: '0.500000', debits: '0.000000' });
    expect(prompts(sims.tight)).to.deep.equal(['runs a minute']);
  });

  it('while waiting: an Idempotency-Key replays the task without a second hold, and the price of acceptance is what is charged', async () => {
    const { v, wallet } = await customer();
    await create(v, 'queue/one', 'first');
    const waiting = await create(v, 'queue/one', 'second', { 'idempotency-key': 'k-1' });
    expect(await create(v, 'queue/one', 'second', { 'idempotency-key': 'k-1' })).to.equal(waiting);
    expect((await v.create({ model: 'queue/one', prompt: 'other', seconds: 5, resolution: '720p' }, { 'idempotency-key': 'k-1' })).status).to.equal(422);
    expect(await wallet()).to.include({ reserved: '1.000000' });
    const reload = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { 'queue/one': { price: { per_second: { '720p': '0.20' } } } } }));
    expect(reload.body.status).to.equal('reloaded');
    await runUntil(async () => (await liveTasks()) === 0);
    expect((await v.get(waiting)).body.billing).to.include({ amount: '0.500000', price_version: 1 });
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '1.000000' });
  });
});
