import { expect } from 'chai';
import OpenAI from 'openai';
import type { Video } from 'openai/resources/videos';
import type { KlingSimulator } from '../../src/sandbox/kling/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../helpers/videos.ts';

// What the gateway adds to OpenAI's Video object (the SDK passes unknown fields through).
type Task = Video & {
  task_id: string;
  task_status: string;
  billing: { amount: string; seconds: number; resolution: string } | null;
  result: Record<string, any> | null;
};

describe('Kling through the official openai SDK (videos.*) and plain HTTP', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let client: OpenAI;
  let kling: KlingSimulator;
  let key: string;
  const bodies: string[] = []; // the content type of each POST the SDK sent

  before(async () => {
    gateway = await startTestGateway();
    kling = gateway.simulators.get('sandbox-kling') as KlingSimulator;
    const customer = await gateway.customerWithKey();
    key = customer.key;
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const recording: typeof fetch = (input, init) => {
      if (init?.method === 'POST') bodies.push(init.body instanceof FormData ? 'multipart/form-data' : (new Headers(init.headers).get('content-type') ?? ''));
      return fetch(input, init);
    };
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, fetch: recording });
  });
  after(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  /** The SDK's own polling loop: retrieve until the status leaves queued / in_progress. */
  async function poll(id: string): Promise<Task> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await gateway.services.videoWorker.processBatch();
      const video = (await client.videos.retrieve(id)) as Task;
      if ((video.status !== 'queued' && video.status !== 'in_progress') || Date.now() > deadline) return video;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const klingIdOf = async (id: string) => ((await gateway.db('video_tasks').where({ id }).first()).upstream_task_id as string).split(':')[2]!;

  it('text to video: videos.create (multipart, a size standing for pro at 16:9), retrieve until completed, downloadContent', async () => {
    const created = await client.videos.create({
      model: 'sandbox/kling-v2-6',
      prompt: 'a paper boat on a river [[sim queued_ms=100 running_ms=100]]',
      seconds: '10',
      size: '1920x1080',
    } as never);
    expect(created.id).to.match(/^vt_/);
    expect(bodies).to.deep.equal(['multipart/form-data']);
    expect(kling.submissions.at(-1)).to.deep.equal({
      kind: 'text2video',
      body: {
        model_name: 'kling-v2-6',
        prompt: 'a paper boat on a river [[sim queued_ms=100 running_ms=100]]',
        mode: 'pro',
        duration: '10',
        aspect_ratio: '16:9',
      },
    });
    const video = await poll(created.id);
    expect(video).to.include({ object: 'video', status: 'completed', task_status: 'completed', seconds: '10', size: '1920x1080', progress: 100 });
    expect(video.billing).to.deep.include({ amount: '1.200000', seconds: 10, resolution: 'pro' }); // 10 s x 0.12
    expect(video.result?.task_id).to.equal(created.id);
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(kling.videoBytes(await klingIdOf(created.id)))).to.equal(true);
  });

  it('image to video: input_reference is the first frame; delete is refused (409, Kling has no cancel)', async () => {
    const created = await client.videos.create({
      model: 'sandbox/kling-v2-6',
      prompt: 'the statue turns its head [[sim queued_ms=0 running_ms=100]]',
      seconds: '5',
      input_reference: { image_url: 'https://example.com/statue.png' },
    } as never);
    expect(kling.submissions.at(-1)).to.deep.equal({
      kind: 'image2video',
      body: {
        model_name: 'kling-v2-6',
        prompt: 'the statue turns its head [[sim queued_ms=0 running_ms=100]]',
        mode: 'std',
        duration: '5',
        image: 'https://example.com/statue.png',
      },
    });
    const refused = await client.videos.delete(created.id).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(OpenAI.ConflictError);
    expect((refused as InstanceType<typeof OpenAI.ConflictError>).code).to.equal('cancel_not_supported');
    const video = await poll(created.id);
    expect(video).to.include({ status: 'completed', seconds: '5' });
    expect(video.billing).to.deep.include({ amount: '0.350000', resolution: 'std' }); // 5 s x 0.07
    const content = await client.videos.downloadContent(created.id);
    expect(Buffer.from(await content.arrayBuffer()).equals(kling.videoBytes(await klingIdOf(created.id)))).to.equal(true);
  });

  it('plain HTTP: POST JSON, GET until completed, GET the content', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const create = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sandbox/kling-v2-6',
        prompt: 'rain on a window [[sim queued_ms=0 running_ms=0]]',
        seconds: 5,
        resolution: 'std',
        ratio: '9:16',
      }),
    });
    expect(create.status).to.equal(202);
    const { task_id: id } = (await create.json()) as { task_id: string };
    expect(kling.submissions.at(-1)!.body).to.include({ mode: 'std', duration: '5', aspect_ratio: '9:16' });
    let task: any;
    for (let i = 0; i < 50; i++) {
      await gateway.services.videoWorker.processBatch();
      task = await (await fetch(`${gateway.url}/v1/videos/${id}`, { headers: auth })).json();
      if (task.task_status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(task).to.include({ task_status: 'completed', size: '720x1280' });
    expect(task.billing).to.deep.include({ amount: '0.350000', seconds: 5, resolution: 'std' });
    const content = await fetch(`${gateway.url}/v1/videos/${id}/content`, { headers: auth });
    expect(content.status).to.equal(200);
    expect(Buffer.from(await content.arrayBuffer()).equals(kling.videoBytes(await klingIdOf(id)))).to.equal(true);
  });
});
