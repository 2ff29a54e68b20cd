import { expect } from 'chai';
import type { MiniMaxSimulator } from '../../../src/sandbox/minimax/server.ts';
import type { OpenAIVideosSimulator } from '../../../src/sandbox/openai-videos/server.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../../helpers/videos.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';

describe('video tasks on the OpenAI videos and MiniMax H3 protocols (simulated upstreams)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let cataloguePath: string;

  before(async () => {
    cataloguePath = sampleCatalogueWith(); // a copy: tests rewrite it (reset puts it back)
    gateway = await startTestGateway({ cataloguePath });
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '20.00' }));
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const create = async (body: Record<string, unknown>) => {
    const response = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const finish = async (id: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await gateway.services.videoWorker.processBatch();
      const task = (await (await fetch(`${gateway.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
      if (!['queued', 'in_progress'].includes(task.task_status) || Date.now() > deadline) return task;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;

  it('Sora: size from tier and ratio; the completed task object (seconds, size) is the delivery, never a download', async () => {
    const sora = gateway.simulators.get('sandbox-openai-videos') as OpenAIVideosSimulator;
    const created = await create({
      model: 'sandbox/compatible-video',
      prompt: `a wave ${QUICK} [[sim duration=12 size=1792x1024]]`,
      seconds: 8,
      resolution: '720p',
      ratio: '9:16',
    });
    expect(created.status).to.equal(202);
    expect(sora.submissions[0]).to.deep.include({ model: 'sora-2', seconds: '8', size: '720x1280' });
    const task = await finish(created.body.task_id);
    expect(task.status).to.equal('completed');
    expect(task.billing).to.deep.include({ amount: '3.600000', seconds: 12, resolution: '1024p' }); // 12 s x 0.30
    expect(task.result.id).to.equal(created.body.task_id);
    expect(JSON.stringify(task)).to.not.match(/video_[0-9a-f]{16}/);
    // The content endpoint answers bytes, and is never read to settle: only the task object is.
    expect(sora.exchanges.filter((e) => e.path.includes('/content'))).to.deep.equal([]);

    const unconfirmed = await create({ model: 'sandbox/compatible-video', prompt: `x ${QUICK} [[sim no_duration]]`, seconds: 4 });
    const held = await finish(unconfirmed.body.task_id);
    expect(held.task_status).to.equal('review');
    expect(held.error.code).to.equal('no_duration');
    const failed = await create({ model: 'sandbox/compatible-video', prompt: `x ${QUICK} [[sim fail]]`, seconds: 4 });
    expect((await finish(failed.body.task_id)).task_status).to.equal('failed');
    const cancel = await fetch(`${gateway.url}/v1/videos/${unconfirmed.body.task_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(cancel.status).to.equal(409);
    expect(await wallet()).to.include({ debits: '3.600000', reserved: '0.400000' }); // the review holds 4 s x 0.10
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  const cases: Array<{ model: string; resolution: string; newPrice: Record<string, string>; bill: string }> = [
    {
      model: 'sandbox/compatible-video',
      resolution: '720p',
      newPrice: { '720p': '0.90', '1024p': '0.30' },
      bill: '0.400000',
    },
    {
      model: 'sandbox/h3',
      resolution: '768P',
      newPrice: { '768P': '0.80', '2K': '0.20' },
      bill: '0.320000',
    },
  ];
  for (const c of cases) {
    it(`${c.model}: an unknown status goes to review; a price changed in flight does not change the bill`, async () => {
      const unknown = await create({ model: c.model, prompt: `x ${QUICK} [[sim status=paused]]`, seconds: 4, resolution: c.resolution });
      const held = await finish(unknown.body.task_id);
      expect(held.task_status).to.equal('review');
      expect(held.error.code).to.equal('unknown_status');

      const inFlight = await create({ model: c.model, prompt: 'x [[sim queued_ms=0 running_ms=300]]', seconds: 4, resolution: c.resolution });
      const reload = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { [c.model]: { price: { per_second: c.newPrice } } } }));
      expect(reload.body.price_versions_created).to.deep.equal([{ model: c.model, price_version: 2 }]);
      const task = await finish(inFlight.body.task_id);
      expect(task.status).to.equal('completed');
      expect(task.billing).to.deep.include({ amount: c.bill, seconds: 4, resolution: c.resolution, price_version: 1 });
    });
  }

  it('H3: a queued task is cancelled upstream with its hold released at once; a running one is refused (409) and billed', async () => {
    const minimax = gateway.simulators.get('sandbox-minimax') as MiniMaxSimulator;
    const queued = await create({ model: 'sandbox/h3', prompt: 'x [[sim queued_ms=60000]]', seconds: 5, resolution: '768P' });
    expect(queued.status).to.equal(202);
    expect(await wallet()).to.include({ reserved: '0.400000' }); // 5 s x 0.08
    const cancelled = await fetch(`${gateway.url}/v1/videos/${queued.body.task_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(cancelled.status).to.equal(200);
    expect(((await cancelled.json()) as any).task_status).to.equal('cancelled');
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
    const { upstream_task_id: upstreamId } = await gateway.db('video_tasks').where({ id: queued.body.task_id }).first();
    const deletes = minimax.exchanges.filter((e) => e.method === 'DELETE').map((e) => [e.path, e.status, e.body]);
    expect(deletes).to.deep.equal([[`/v2/video_generation/${upstreamId}`, 200, { task_id: upstreamId, action: 'cancelled', status: 'cancelled' }]]);

    const running = await create({ model: 'sandbox/h3', prompt: 'x [[sim queued_ms=0 running_ms=400]]', seconds: 5, resolution: '768P' });
    await new Promise((r) => setTimeout(r, 50));
    const refused = await fetch(`${gateway.url}/v1/videos/${running.body.task_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).to.equal(409);
    expect(((await refused.json()) as any).error.code).to.equal('cancel_refused');
    const task = await finish(running.body.task_id);
    expect(task.task_status).to.equal('completed');
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.400000' });
  });

  it('H3: reference_images become reference_image content items, settled by output seconds at the tier', async () => {
    const minimax = gateway.simulators.get('sandbox-minimax') as MiniMaxSimulator;
    const references = Array.from({ length: 9 }, (_, i) => ({ url: `https://example.com/ref${i}.png` }));
    const created = await create({
      model: 'sandbox/h3',
      prompt: `a dancer ${QUICK}`,
      seconds: 6,
      resolution: '2K',
      ratio: '16:9',
      reference_images: references,
    });
    expect(created.status).to.equal(202);
    const sent = minimax.submissions[0]!;
    expect(sent).to.deep.include({ model: 'MiniMax-H3', resolution: '2K', duration: 6, ratio: '16:9' });
    const items = sent.content as Array<Record<string, unknown>>;
    expect(items[0]).to.deep.equal({ type: 'text', text: `a dancer ${QUICK}` });
    expect(items.slice(1)).to.deep.equal(references.map((r) => ({ type: 'image_url', image_url: { url: r.url }, role: 'reference_image' })));
    const task = await finish(created.body.task_id);
    expect(task.billing).to.deep.include({ amount: '1.200000', seconds: 6, resolution: '2K' }); // 6 s x 0.20
    expect(task.result.content.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/assets\//);

    const tooMany = await create({ model: 'sandbox/h3', prompt: 'x', seconds: 6, reference_images: [...references, { url: 'https://example.com/10.png' }] });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.error.param).to.equal('reference_images');
    const noDuration = await create({ model: 'sandbox/h3', prompt: `x ${QUICK} [[sim no_duration]]`, seconds: 4 });
    expect((await finish(noDuration.body.task_id)).task_status).to.equal('review');
    const failed = await create({ model: 'sandbox/h3', prompt: `x ${QUICK} [[sim fail]]`, seconds: 4 });
    expect((await finish(failed.body.task_id)).status).to.equal('failed');
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
});
