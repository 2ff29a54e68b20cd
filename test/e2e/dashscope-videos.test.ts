import { expect } from 'chai';
import OpenAI from 'openai';
import type { Video } from 'openai/resources/videos';
import type { DashScopeSimulator } from '../../src/sandbox/dashscope/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../helpers/videos.ts';

// What the gateway adds to OpenAI's Video object (the SDK passes unknown fields through).
type Task = Video & { task_status: string; billing: { amount: string; seconds: number; resolution: string } | null; result: any };

describe('Alibaba Wan (DashScope) end to end: the official openai SDK’s videos.* and plain HTTP', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let client: OpenAI;
  let key: string;
  let dashscope: DashScopeSimulator;

  before(async () => {
    gateway = await startTestGateway();
    dashscope = gateway.simulators.get('sandbox-dashscope') as DashScopeSimulator;
    const customer = await gateway.customerWithKey();
    key = customer.key;
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '5.00', reference: 'fund' });
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  const upstreamIdOf = async (id: string) => (await gateway.db('video_tasks').where({ id }).first()).upstream_task_id as string;

  it('SDK: videos.create (multipart) with a size, retrieve until completed and settled, downloadContent the bytes', async () => {
    const created = await client.videos.create({
      model: 'sandbox/wan2.7-t2v' as never,
      prompt: 'a lantern festival [[sim queued_ms=100 running_ms=100]]',
      seconds: '4',
      size: '720x1280',
    });
    expect(created.id).to.match(/^vt_/);
    expect(dashscope.submissions.at(-1)).to.deep.equal({
      model: 'wan2.7-t2v',
      input: { prompt: 'a lantern festival [[sim queued_ms=100 running_ms=100]]' },
      parameters: { resolution: '720P', ratio: '9:16', duration: 4 },
    });
    let video = (await client.videos.retrieve(created.id)) as Task;
    const deadline = Date.now() + 10_000;
    while ((video.status === 'queued' || video.status === 'in_progress') && Date.now() < deadline) {
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 50));
      video = (await client.videos.retrieve(created.id)) as Task;
    }
    expect(video).to.include({ status: 'completed', task_status: 'completed', seconds: '4', size: '720x1280', model: 'sandbox/wan2.7-t2v' });
    expect(video.billing).to.deep.include({ amount: '0.400000', seconds: 4, resolution: '720p' }); // 4 s x 0.10
    expect(video.expires_at).to.be.a('number');
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(dashscope.videoBytes(await upstreamIdOf(created.id)))).to.equal(true);
  });

  it('SDK: videos.delete cancels a task DashScope still has queued; a running one is a ConflictError', async () => {
    const queued = await client.videos.create({ model: 'sandbox/wan2.7-t2v' as never, prompt: 'slow [[sim queued_ms=60000]]', seconds: '4' });
    const deleted = (await client.videos.delete(queued.id)) as unknown as Task;
    expect(deleted).to.include({ id: queued.id, status: 'failed', task_status: 'cancelled' });
    expect(deleted.error).to.deep.include({ code: 'cancelled' });

    const running = await client.videos.create({ model: 'sandbox/wan2.7-t2v' as never, prompt: 'busy [[sim queued_ms=0 running_ms=60000]]', seconds: '4' });
    const refused = await client.videos.delete(running.id).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(OpenAI.ConflictError);
    expect((refused as InstanceType<typeof OpenAI.ConflictError>).error).to.deep.include({ code: 'cancel_refused' });
  });

  it('plain HTTP: JSON create, GET until completed, GET /content', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/wan2.7-t2v', prompt: 'rain on a pond [[sim queued_ms=0 running_ms=0]]', seconds: 2, resolution: '1080p' }),
    });
    expect(created.status).to.equal(202);
    const { task_id } = (await created.json()) as { task_id: string };
    let task: any;
    for (let i = 0; i < 100; i++) {
      await gateway.services.videoWorker.processBatch();
      task = await (await fetch(`${gateway.url}/v1/videos/${task_id}`, { headers: auth })).json();
      if (task.task_status !== 'queued' && task.task_status !== 'in_progress') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(task).to.include({ task_status: 'completed', seconds: '2', size: '1920x1080' });
    expect(task.billing).to.deep.include({ amount: '0.300000', seconds: 2, resolution: '1080p' }); // 2 s x 0.15
    const content = await fetch(`${gateway.url}/v1/videos/${task_id}/content`, { headers: auth });
    expect(content.status).to.equal(200);
    expect(Buffer.from(await content.arrayBuffer()).equals(dashscope.videoBytes(await upstreamIdOf(task_id)))).to.equal(true);
  });
});
