import { expect } from 'chai';
import type { ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../../helpers/videos.ts';

/** The sample catalogue without seedance's free seconds (exact charges), plus a non-cancellable plan. */
function testCatalogue(): string {
  return sampleCatalogueWith({
    withoutFreeQuota: ['sandbox/seedance'],
    models: [
      {
        id: 'sandbox/seedance-fixed',
        group: 'video',
        routes: [{ provider: 'sandbox-ark', upstream_model: 'doubao-seedance-1-0-pro-250528' }],
        video: { seconds: [5], cancellable: false, inline_base64: false, content_types: ['text'] },
        price: { per_second: { '720p': '0.20' } },
      },
    ],
  });
}

const QUICK = '[[sim queued_ms=0 running_ms=0]]';

describe('video tasks on the Ark protocol (simulated upstream)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let ark: ArkSimulator;
  let key: string;
  let customerId: string;
  let cataloguePath: string;

  before(async () => {
    cataloguePath = testCatalogue();
    gateway = await startTestGateway({ cataloguePath });
    ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '5.00' }));
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const create = async (body: Record<string, unknown>, headers: Record<string, string> = {}, apiKey = key) => {
    const response = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'sandbox/seedance', seconds: 5, resolution: '720p', ...body }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const get = async (id: string, apiKey = key) => {
    const response = await fetch(`${gateway.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: response.status, body: (await response.json()) as any, text: '' };
  };
  const cancel = async (id: string, apiKey = key) => {
    const response = await fetch(`${gateway.url}/v1/videos/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } });
    return { status: response.status, body: (await response.json()) as any, headers: Object.fromEntries(response.headers) };
  };
  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  /** Runs the poller until the task leaves the live statuses. */
  const pollUntilDone = async (id: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await gateway.services.videoWorker.processBatch();
      const task = (await get(id)).body;
      if (!['queued', 'in_progress'].includes(task.task_status) || Date.now() > deadline) return task;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const reconciled = async () => expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);

  it('lives to completed and is settled once by the delivered seconds and tier, with no upstream id shown', async () => {
    const created = await create({ prompt: `a cat ${QUICK} [[sim duration=10 resolution=1080p]]` });
    expect(created.status).to.equal(202);
    expect(created.body).to.deep.equal({ task_id: created.body.task_id, id: created.body.task_id }); // the platform id only
    expect((await get(created.body.task_id)).body).to.include({ id: created.body.task_id, object: 'video', status: 'queued', task_status: 'queued' });
    expect((await wallet()).reserved).to.equal('0.500000'); // 5 s x 0.10 at 720p, as requested
    const task = await pollUntilDone(created.body.task_id);
    expect(task).to.include({ status: 'completed', task_status: 'completed' });
    // Delivered 10 s at 1080p: 10 x 0.25 = 2.50, covered by the balance beyond the reservation.
    expect(task.billing).to.deep.equal({ amount: '2.500000', currency: 'USD', seconds: 10, resolution: '1080p', price_version: 1 });
    expect(await wallet()).to.include({ debits: '2.500000', reserved: '0.000000', available: '2.500000' });
    const upstreamId = [...ark.tasks.keys()][0]!;
    expect(task.result.id).to.equal(created.body.task_id);
    expect(task.result.model).to.equal('sandbox/seedance');
    expect(task.result.content.video_url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/assets\//); // the supplier URL, as given
    expect(JSON.stringify(task)).to.not.include(upstreamId);
    expect(JSON.stringify(task)).to.not.include('doubao');
    await gateway.services.videoWorker.processBatch();
    const settles = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger`)).body.data.filter((e: any) => e.kind === 'settle');
    expect(settles).to.have.length(1);
    expect(ark.submissions[0]).to.deep.include({ model: 'doubao-seedance-1-5-pro-251215', duration: 5, resolution: '720p' });
    await reconciled();
  });

  it('releases a failed task and sends unconfirmable or unknown outcomes to review, holding the reservation', async () => {
    const failed = await create({ prompt: `x ${QUICK} [[sim fail]]` });
    expect(await pollUntilDone(failed.body.task_id)).to.include({ status: 'failed', task_status: 'failed', billing: null });
    expect((await get(failed.body.task_id)).body.error.code).to.equal('OutputVideoSensitiveContentDetected');
    for (const directive of ['no_duration', 'no_url', 'resolution=4k', 'status=paused']) {
      const task = await create({ prompt: `x ${QUICK} [[sim ${directive}]]` });
      const done = await pollUntilDone(task.body.task_id);
      expect(done.task_status, directive).to.equal('review');
      expect(done.status, directive).to.equal('in_progress'); // OpenAI's view: not decided yet
      expect(done.billing).to.equal(null);
    }
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '2.000000' }); // four reviews x 0.50
    const codes = (await gateway.db('video_tasks').where({ status: 'review' }).orderBy('created_at')).map((t) => t.error.code);
    expect(codes).to.have.members(['no_duration', 'no_asset', 'unpriced_tier', 'unknown_status']);
    await reconciled();
  });

  it('lets an operator list, inspect and resolve tasks held in review; the journal says who and why', async () => {
    const first = await create({ prompt: `x ${QUICK} [[sim no_duration]]` });
    const second = await create({ prompt: `x ${QUICK} [[sim status=paused]]` });
    await pollUntilDone(first.body.task_id);
    await pollUntilDone(second.body.task_id);
    const listed = await gateway.admin('GET', '/admin/v1/video-tasks?status=review');
    expect(listed.body.data.map((t: any) => t.id).sort()).to.deep.equal([first.body.task_id, second.body.task_id].sort());
    const detail = await gateway.admin('GET', `/admin/v1/video-tasks/${first.body.task_id}`);
    expect(detail.body.upstream_task_id).to.match(/^cgt-/);
    expect(detail.body.result.id).to.equal(detail.body.upstream_task_id); // operators see the raw answer
    expect(detail.body.reserved).to.equal('0.500000');

    const noAmount = await gateway.admin('POST', `/admin/v1/video-tasks/${first.body.task_id}/resolve`, {
      action: 'settle',
      actor: 'ops@x',
      reason: 'checked',
    });
    expect(noAmount.status).to.equal(400);
    expect(noAmount.body.error.param).to.equal('amount');
    const settled = await gateway.admin('POST', `/admin/v1/video-tasks/${first.body.task_id}/resolve`, {
      action: 'settle',
      amount: '0.40',
      actor: 'ops@x',
      reason: 'file checked by hand: 4 s',
    });
    expect(settled.body).to.include({ status: 'completed', billed_amount: '0.400000' });
    expect((await get(first.body.task_id)).body.billing).to.deep.include({ amount: '0.400000', seconds: null });
    const again = await gateway.admin('POST', `/admin/v1/video-tasks/${first.body.task_id}/resolve`, { action: 'release', actor: 'ops@x', reason: 'oops' });
    expect(again.status).to.equal(409);
    const released = await gateway.admin('POST', `/admin/v1/video-tasks/${second.body.task_id}/resolve`, {
      action: 'release',
      actor: 'ops@y',
      reason: 'provider lost it',
    });
    expect(released.body.status).to.equal('failed');
    expect(await wallet()).to.include({ debits: '0.400000', reserved: '0.000000' });
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger`)).body.data;
    expect(journal.find((e: any) => e.kind === 'settle').purpose).to.include({ resolved_by: 'ops@x', reason: 'file checked by hand: 4 s' });
    expect(journal.find((e: any) => e.kind === 'release').purpose).to.include({ resolved_by: 'ops@y', reason: 'provider lost it' });
    expect((await gateway.admin('GET', '/admin/v1/video-tasks/vt_nobody')).status).to.equal(404);
    await reconciled();
  });

  it('charges the price in force at acceptance even when the catalogue changed in flight', async () => {
    const created = await create({ prompt: `x [[sim queued_ms=0 running_ms=300]]` });
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { model: { 'sandbox/seedance': { price: { per_second: { '480p': '0.05', '720p': '0.90', '1080p': '0.25' } } } } }),
    );
    expect(reload.body.price_versions_created).to.deep.equal([{ model: 'sandbox/seedance', price_version: 2 }]);
    const task = await pollUntilDone(created.body.task_id);
    expect(task.billing).to.deep.include({ amount: '0.500000', price_version: 1 });
  });

  it('cancels a queued task once the upstream confirms; refuses plans without cancel; a running task goes on', async () => {
    const queued = await create({ prompt: 'x [[sim queued_ms=60000]]' });
    await gateway.services.videoWorker.processBatch();
    const cancelled = await cancel(queued.body.task_id);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body).to.include({ status: 'failed', task_status: 'cancelled' });
    expect(cancelled.body.error.code).to.equal('cancelled');
    expect((await wallet()).reserved).to.equal('0.000000');
    expect((await cancel(queued.body.task_id)).body.error.code).to.equal('task_not_cancellable');

    const fixed = await create({ model: 'sandbox/seedance-fixed', prompt: 'x [[sim queued_ms=60000]]' });
    const refused = await cancel(fixed.body.task_id);
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('cancel_not_supported');
    expect((await get(fixed.body.task_id)).body.task_status).to.equal('queued');

    // Ark refuses to cancel a running task: 409, final (SDKs must not retry it); the task goes on.
    const running = await create({ prompt: 'x [[sim queued_ms=0 running_ms=400]]' });
    const answer = await cancel(running.body.task_id);
    expect(answer.status).to.equal(409);
    expect(answer.body.error.code).to.equal('cancel_refused');
    expect(answer.headers['x-should-retry']).to.equal('false');
    expect((await get(running.body.task_id)).body.task_status).to.equal('in_progress');
    expect((await pollUntilDone(running.body.task_id)).task_status).to.equal('completed');
    await reconciled();
  });

  it('replays an Idempotency-Key, refuses it with another body, and 409s one still in flight', async () => {
    const body = { prompt: `x ${QUICK}` };
    const first = await create(body, { 'idempotency-key': 'abc' });
    const again = await create(body, { 'idempotency-key': 'abc' });
    expect(again).to.deep.equal(first);
    const other = await create({ ...body, seconds: 10 }, { 'idempotency-key': 'abc' });
    expect(other.status).to.equal(422);
    expect(other.body.error.code).to.equal('idempotency_key_reused');
    expect(ark.submissions).to.have.length(1);
    expect((await wallet()).reserved).to.equal('0.500000');

    await gateway.db('video_tasks').where({ id: first.body.task_id }).update({ status: 'submitting', created_at: new Date() });
    const inFlight = await create(body, { 'idempotency-key': 'abc' });
    expect(inFlight.status).to.equal(409);
    expect(inFlight.body.error.code).to.equal('idempotency_key_in_use');
  });

  it('hides tasks from other customers and refuses bad input naming the field, changing nothing', async () => {
    const mine = await create({ prompt: 'x [[sim queued_ms=60000]]' });
    const other = await gateway.customerWithKey();
    expect((await get(mine.body.task_id, other.key)).status).to.equal(404);
    expect((await cancel(mine.body.task_id, other.key)).status).to.equal(404);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ prompt: 'x', seconds: 7 }, 'seconds'],
      [{ prompt: 'x', resolution: '4k' }, 'resolution'],
      [{ content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, 'prompt'],
      [{ prompt: 'x', content: [{ type: 'video_url', video_url: { url: 'https://x/y.mp4' } }] }, 'content[0].type'],
      [{ prompt: 'x', content: [{ type: 'image_url', image_url: { url: 'file-abc123' } }] }, 'content[0].image_url.url'],
      [{ prompt: 'x', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(2_000_000)}` } }] }, 'content[0].image_url.url'],
      [{ prompt: 'x', file_id: 'file-abc' }, 'file_id'],
      [{ prompt: 'x', reference_images: [{ url: 'https://x/a.png' }] }, 'reference_images'],
      [{ prompt: 'x', generate_audio: 'maybe' }, 'generate_audio'],
      [{ prompt: 'x', ratio: 'wide' }, 'ratio'],
    ];
    for (const [body, param] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      expect(response.body.error.param, JSON.stringify(body).slice(0, 80)).to.equal(param);
    }
    expect((await create({ model: 'sandbox/claude-sonnet', prompt: 'x' })).body.error.code).to.equal('model_not_video');
    expect(await gateway.db('video_tasks')).to.have.length(1);
    expect((await wallet()).reserved).to.equal('0.500000');
  });

  it('refuses without a task when the balance is short, and releases when the upstream refuses', async () => {
    const poor = await gateway.customerWithKey();
    const refused = await create({ prompt: 'x' }, {}, poor.key);
    expect(refused.status).to.equal(402);
    expect(refused.body.error.type).to.equal('billing_error');
    const rejected = await create({ prompt: 'x [[sim reject]]' });
    expect(rejected.status).to.equal(400);
    expect(rejected.body.error.code).to.equal('upstream_rejected');
    expect(rejected.body.error.message).to.not.include('0217');
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
    expect((await gateway.db('video_tasks')).map((t) => t.status)).to.deep.equal(['failed']);
    await reconciled();
  });

  it('recovers: an orphaned submission goes to review; poll errors back off and never fail a task', async () => {
    const created = await create({ prompt: `x ${QUICK}` });
    await gateway
      .db('video_tasks')
      .where({ id: created.body.task_id })
      .update({ status: 'submitting', upstream_task_id: null, next_poll_at: new Date(Date.now() - 1000) });
    await gateway.services.videoWorker.processBatch();
    expect((await get(created.body.task_id)).body.task_status).to.equal('review');
    expect((await wallet()).reserved).to.equal('0.500000');

    const live = await create({ prompt: `x ${QUICK}` });
    await ark.close(); // the upstream disappears
    await new Promise((r) => setTimeout(r, 150));
    const polledFrom = Date.now(); // the backoff is counted from the failed poll, inside processBatch
    await gateway.services.videoWorker.processBatch();
    const row = await gateway.db('video_tasks').where({ id: live.body.task_id }).first();
    expect(row.status).to.equal('queued');
    expect(row.attempts).to.equal(1);
    expect(new Date(row.next_poll_at).getTime()).to.be.at.least(polledFrom + 200); // 100 ms poll interval doubled by 1 attempt
  });
});
