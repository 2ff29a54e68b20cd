// Issue 33, item 8: one customer cannot stall the queue. A provider's 429 that follows one
// customer's submissions (while another customer's are accepted) backs off that customer's tasks
// only; 429s across customers in a row are the account's and pause the provider for everyone, as
// before. Real HTTP to simulated Ark accounts, on the embedded database and on PostgreSQL.
import { expect } from 'chai';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { exchangeProblems, videoCalls } from '../../helpers/videos.ts';

/** `shared`: an account with no limit of ours; `full`: one whose account runs one task at a time (its own 429s). */
const ACCOUNTS = { shared: {}, full: { accountLimit: 1 } } as const;
type Account = keyof typeof ACCOUNTS;

function catalogueFor(sims: Record<Account, ArkSimulator>): string {
  const accounts = Object.keys(ACCOUNTS) as Account[];
  return sampleCatalogueWith({
    providers: accounts.map((a) => testProvider(`ark-${a}`, 'ark-video', sims[a].baseUrl, 'ARK_REFUSALS_KEY')),
    models: accounts.map((a) => seedanceModel(`refusals/${a}`, `ark-${a}`)),
  });
}

describe("the queue tells one customer's refusals from the account's", function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let sims: Record<Account, ArkSimulator>;

  beforeEach(async () => {
    process.env.ARK_REFUSALS_KEY = 'ark-refusals-key';
    sims = {
      shared: await startArkSimulator({ queuedMs: 0, runningMs: 60_000 }),
      full: await startArkSimulator({ queuedMs: 30, runningMs: 300, accountLimit: 1 }),
    };
    gateway = await startTestGateway({ cataloguePath: catalogueFor(sims) });
  });
  afterEach(async () => {
    for (const sim of Object.values(sims)) for (const exchange of sim.exchanges) expect(exchangeProblems('ark-video-tasks', exchange)).to.deep.equal([]);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
    await gateway.close();
    await Promise.all(Object.values(sims).map((s) => s.close()));
    delete process.env.ARK_REFUSALS_KEY;
  });

  async function customer() {
    const { key, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: `fund-${customerId}` });
    const v = videoCalls(gateway, key);
    const create = async (account: Account, prompt: string) => {
      const answer = await v.create({ model: `refusals/${account}`, prompt, seconds: 5, resolution: '720p' });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
      return answer.body.task_id as string;
    };
    const statuses = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => (await v.get(id)).body as { task_status: string; queue_position: number | null }));
    const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    return { customerId, create, statuses, wallet };
  }
  /** The prompts each simulated account accepted, in order, without their directives. */
  const accepted = (sim: ArkSimulator) => sim.submissions.map((s) => (s.content as Array<{ text: string }>)[0]!.text.replace(/\s*\[\[sim [^\]]*\]\]/g, ''));
  const providerRow = async (account: Account) =>
    gateway
      .db('video_provider_queues')
      .where({ provider_id: `ark-${account}` })
      .first();
  const customerPause = async (account: Account, customerId: string) =>
    gateway
      .db('video_queue_turns')
      .where({ provider_id: `ark-${account}`, customer_id: customerId })
      .first();
  /** Runs the poller until `done`, within 30 s. */
  async function runUntil(done: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('not reached within 30 s');
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("A's submissions draw 429s while B's are accepted: only A's tasks back off, and B's 6 tasks are all sent and run", async () => {
    const a = await customer();
    const b = await customer();
    const running = '[[sim queued_ms=0 running_ms=60000]]';
    const bTasks = [await b.create('shared', `b 1 ${running}`)];
    // The provider throttles A's submissions (429 with retry-after: 7) right after accepting B's.
    const aTasks = [await a.create('shared', 'a 1 [[sim reject=429]]'), await a.create('shared', 'a 2 [[sim reject=429]]')];
    for (let i = 2; i <= 6; i++) bTasks.push(await b.create('shared', `b ${i} ${running}`));

    // B's tasks went out at create, one after the other, none behind A's waiting tasks.
    expect(accepted(sims.shared)).to.deep.equal(['b 1', 'b 2', 'b 3', 'b 4', 'b 5', 'b 6']);
    expect((await providerRow('shared')).paused_until).to.equal(null); // the provider is not paused for everyone
    const aPause = await customerPause('shared', a.customerId);
    expect(aPause.refusals).to.equal(1);
    expect(new Date(aPause.paused_until).getTime()).to.be.greaterThan(Date.now());

    // The poller moves B's tasks on while A's stay in the gateway's queue, held, not sent.
    await runUntil(async () => (await b.statuses(bTasks)).every((t) => t.task_status === 'in_progress'));
    expect((await a.statuses(aTasks)).map((t) => [t.task_status, t.queue_position])).to.deep.equal([
      ['queued', 1],
      ['queued', 2],
    ]);
    expect(await gateway.db('video_tasks').whereIn('id', aTasks).pluck('status')).to.deep.equal(['waiting', 'waiting']);
    expect(accepted(sims.shared)).to.have.length(6); // A's were refused once (a 1), then held back: a 2 was never sent
    expect(await a.wallet()).to.include({ reserved: '1.000000', debits: '0.000000' });
    expect(await b.wallet()).to.include({ reserved: '3.000000' });
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).text();
    expect(metrics).to.match(/^gateway_video_queue_requeues_total\{provider="ark-shared"\} 1$/m);
  });

  it("429s across customers in a row are the account's: the provider is paused for everyone, and everyone's next task waits without a call", async () => {
    const a = await customer();
    const b = await customer();
    const c = await customer();
    const b1 = await b.create('shared', 'b 1 [[sim queued_ms=0 running_ms=60000]]');
    const a1 = await a.create('shared', 'a 1 [[sim reject=429]]'); // after B's acceptance: A's own
    expect((await providerRow('shared')).paused_until).to.equal(null);
    const c1 = await c.create('shared', 'c 1 [[sim reject=429]]'); // right after A's refusal: the account's
    const paused = await providerRow('shared');
    expect(paused.refusals).to.equal(1);
    expect(new Date(paused.paused_until).getTime()).to.be.greaterThan(Date.now());
    expect((await customerPause('shared', c.customerId))?.paused_until ?? null).to.equal(null); // C is not singled out
    const exchanges = sims.shared.exchanges.length;
    const b2 = await b.create('shared', 'b 2 [[sim queued_ms=0 running_ms=60000]]'); // B too waits while the provider is paused
    expect(sims.shared.exchanges).to.have.length(exchanges);
    expect((await b.statuses([b1, b2])).map((t) => t.task_status)).to.deep.equal(['queued', 'queued']);
    expect(await gateway.db('video_tasks').whereIn('id', [a1, c1, b2]).orderBy('created_at').pluck('status')).to.deep.equal(['waiting', 'waiting', 'waiting']);
  });

  it("a full account refusing several customers' tasks still drains one task at a time, each charged once", async () => {
    const customers = [await customer(), await customer(), await customer()];
    const ids: string[][] = [[], [], []];
    for (let round = 1; round <= 2; round++) for (const [i, c] of customers.entries()) ids[i]!.push(await c.create('full', `customer ${i} task ${round}`));
    await runUntil(async () => (await gateway.db('video_tasks').whereIn('status', ['waiting', 'submitting', 'queued', 'in_progress'])).length === 0);
    expect(sims.full.peakActive).to.equal(1);
    expect(accepted(sims.full)).to.have.length(6);
    for (const [i, c] of customers.entries()) {
      expect((await c.statuses(ids[i]!)).map((t) => t.task_status)).to.deep.equal(['completed', 'completed']);
      expect(await c.wallet()).to.include({ reserved: '0.000000', debits: '1.000000' });
    }
    expect(sims.full.limitRefusals).to.be.greaterThan(0); // the account refused while full
    expect((await providerRow('full')).refusals).to.equal(0); // and the backoff started over once it took a task
  });
});
