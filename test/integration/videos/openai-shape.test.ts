import { expect } from 'chai';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract, videoCalls } from '../../helpers/videos.ts';

// Task responses carry OpenAI's video object beside the platform envelope, so the OpenAI SDK's
// videos.create / retrieve / list / delete are useful against the gateway.
const QUICK = '[[sim queued_ms=0 running_ms=0]]';

describe('video tasks in the OpenAI SDK shape: create, retrieve, list, statuses', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let customerId: string;
  let v: ReturnType<typeof videoCalls>;

  before(async () => {
    gateway = await startTestGateway();
  });
  beforeEach(async () => {
    await gateway.reset();
    const customer = await fundedCustomer(gateway, { balance: '20.00' });
    customerId = customer.customerId;
    v = videoCalls(gateway, customer.key);
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  it('create answers the platform id as id and task_id; retrieve answers the OpenAI video object; request ids', async () => {
    const created = await v.create({ model: 'sandbox/compatible-video', prompt: `a calico cat ${QUICK}`, seconds: '8', size: '720x1280' });
    expect(created.status).to.equal(202);
    expect(created.body.id).to.match(/^vt_/).and.equal(created.body.task_id);
    expect(Object.keys(created.body)).to.have.members(['task_id', 'id']);
    const body = (await v.get(created.body.id)).body;
    expect(body).to.deep.include({
      object: 'video',
      model: 'sandbox/compatible-video',
      status: 'queued',
      task_status: 'queued',
      progress: 0,
      seconds: '8',
      size: '720x1280',
      prompt: `a calico cat ${QUICK}`,
      error: null,
      completed_at: null,
      expires_at: null,
      remixed_from_video_id: null,
    });
    expect(body.created_at).to.be.a('number');
    expect(created.headers.get('x-request-id')).to.match(/^req_/).and.equal(created.headers.get('request-id'));

    const task = await v.finish(body.id);
    expect(task).to.deep.include({ status: 'completed', task_status: 'completed', progress: 100, seconds: '8', size: '720x1280' });
    expect(task.completed_at).to.be.a('number');
    expect(task.expires_at).to.be.closeTo(task.completed_at + 3600, 2); // the simulator's expires_at (an hour after it finished), as OpenAI says it
    const retrieved = await v.get(body.id);
    expect(retrieved.headers.get('openai-poll-after-ms')).to.equal('100'); // VIDEO_POLL_INTERVAL_MS of the test gateway
    expect(retrieved.headers.get('x-request-id')).to.match(/^req_/);
  });

  it('gives a size for every task: the one asked for, or the nominal size of the tier and ratio', async () => {
    const task = async (request: Record<string, unknown>) => (await v.get((await v.create(request)).body.id)).body;
    const sized = { body: await task({ model: 'sandbox/seedance', prompt: 'a', size: '1080x1920' }) };
    expect(sized.body).to.deep.include({ size: '1080x1920', seconds: '5', request: { seconds: 5, resolution: '1080p', ratio: '9:16', size: '1080x1920' } });
    const named = { body: await task({ model: 'sandbox/seedance', prompt: 'a', resolution: '720p', ratio: '9:16' }) };
    expect(named.body.size).to.equal('720x1280'); // the model's sizes name it
    const nominal = { body: await task({ model: 'sandbox/h3', prompt: 'a', seconds: 4, resolution: '768P', ratio: '16:9' }) };
    expect(nominal.body.size).to.equal('1366x768');
    const unsaid = { body: await task({ model: 'sandbox/seedance', prompt: 'a' }) };
    expect(unsaid.body.size).to.equal('854x480'); // the first priced tier, nominally 16:9 (the provider's default)
  });

  it('shows our precise status in task_status and OpenAI’s four in status: cancelled, review and expired', async () => {
    const cancelled = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim queued_ms=60000]]' });
    const answer = await v.cancel(cancelled.body.id);
    expect(answer.body).to.deep.include({
      status: 'failed',
      task_status: 'cancelled',
      error: { code: 'cancelled', message: 'The task was cancelled at your request; nothing was charged.' },
    });

    const review = await v.finish((await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim no_duration]]` })).body.id);
    expect(review).to.deep.include({ status: 'in_progress', task_status: 'review' });
    expect(review.error.code).to.equal('no_duration');
    expect((await v.get(review.id)).headers.get('openai-poll-after-ms')).to.equal('60000');

    const expired = await v.finish((await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim status=expired]]` })).body.id);
    expect(expired).to.deep.include({ status: 'failed', task_status: 'failed', billing: null });
    expect(expired.error.code).to.equal('expired');
    expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body).to.include({ debits: '0.000000' });
  });

  it('lists the caller’s tasks as an OpenAI cursor page: after, limit, order; nobody else’s', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await v.create({ model: 'sandbox/seedance', prompt: `task ${i} [[sim queued_ms=60000]]` })).body.id);
    const other = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${other.customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const theirs = (await videoCalls(gateway, other.key).create({ model: 'sandbox/seedance', prompt: 'theirs [[sim queued_ms=60000]]' })).body.id;

    const first = await v.list('?limit=2');
    expect(first.status).to.equal(200);
    expect(first.headers.get('openai-poll-after-ms')).to.equal('100');
    expect(first.body).to.deep.include({ object: 'list', first_id: ids[4], last_id: ids[3], has_more: true });
    expect(first.body.data.map((t: any) => t.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.body.data[0]).to.include({ object: 'video', status: 'queued' });
    const second = await v.list(`?limit=2&after=${first.body.last_id}`);
    expect(second.body.data.map((t: any) => t.id)).to.deep.equal([ids[2], ids[1]]);
    const last = await v.list(`?limit=2&after=${second.body.last_id}`);
    expect(last.body).to.deep.include({ first_id: ids[0], last_id: ids[0], has_more: false });

    const ascending = await v.list('?order=asc');
    expect(ascending.body.data.map((t: any) => t.id)).to.deep.equal(ids); // default limit 20
    expect((await v.list(`?order=asc&after=${ids[3]}`)).body.data.map((t: any) => t.id)).to.deep.equal([ids[4]]);
    expect(ascending.body.data.map((t: any) => t.id)).to.not.include(theirs);

    const empty = await videoCalls(gateway, (await gateway.customerWithKey()).key).list();
    expect(empty.body).to.deep.equal({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    for (const [query, param] of [
      [`?after=${theirs}`, 'after'],
      ['?after=vt_nobody', 'after'],
      ['?after=video_1', 'after'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?order=up', 'order'],
    ]) {
      const refused = await v.list(query);
      expect(refused.status, query).to.equal(400);
      expect(refused.body.error.param, query).to.equal(param);
    }
  });
});
