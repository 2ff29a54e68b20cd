import { expect } from 'chai';
import OpenAI from 'openai';
import type { Video } from 'openai/resources/videos';
import type { ArkSimulator } from '../../src/sandbox/ark/server.ts';
import type { OpenAIVideosSimulator } from '../../src/sandbox/openai-videos/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../helpers/videos.ts';

// What the gateway adds to OpenAI's Video object (the SDK passes unknown fields through).
type Task = Video & {
  _request_id?: string | null;
  task_id: string;
  task_status: string;
  billing: { amount: string; seconds: number } | null;
  result: Record<string, unknown> | null;
};

describe('official openai SDK: videos.create (multipart), retrieve until completed, list, downloadContent, delete', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let client: OpenAI;
  const contentTypes: string[] = [];

  before(async () => {
    gateway = await startTestGateway();
    const { key, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const recording: typeof fetch = (input, init) => {
      if (init?.method === 'POST')
        contentTypes.push(init.body instanceof FormData ? 'multipart/form-data' : (new Headers(init.headers).get('content-type') ?? ''));
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

  it('creates with multipart form data (Ark options included), polls retrieve until completed and settled, downloads the bytes', async () => {
    const ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
    const { data: created, request_id } = await client.videos
      .create({
        model: 'sandbox/seedance',
        prompt: 'a red fox in the snow [[sim queued_ms=100 running_ms=100]]',
        seconds: '10',
        size: '1280x720',
        generate_audio: false,
        content: [{ type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' }],
      } as never)
      .withResponse();
    expect(request_id).to.match(/^req_/); // the SDK reads x-request-id
    expect(created.id).to.match(/^vt_/); // create answers the platform id only; retrieve has the video
    expect(await client.videos.retrieve(created.id)).to.include({ object: 'video', model: 'sandbox/seedance', seconds: '10', size: '1280x720' });
    expect(contentTypes[0]).to.match(/^multipart\/form-data/);
    expect(ark.submissions.at(-1)).to.deep.include({ duration: 10, resolution: '720p', ratio: '16:9', generate_audio: false });
    expect(ark.submissions.at(-1)!.content).to.deep.equal([
      { type: 'text', text: 'a red fox in the snow [[sim queued_ms=100 running_ms=100]]' },
      { type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' },
    ]);

    const task = await poll(created.id);
    expect(task).to.include({ status: 'completed', task_status: 'completed', progress: 100, seconds: '10' });
    expect(task._request_id).to.match(/^req_/);
    // 10 free seconds a day on sandbox/seedance: this first task costs nothing, and says so.
    expect(task.billing).to.deep.include({ amount: '0.000000', seconds: 10 });
    expect(task.result?.id).to.equal(created.id);

    const upstreamId = (await gateway.db('video_tasks').where({ id: created.id }).first()).upstream_task_id as string;
    const download = await client.videos.downloadContent(created.id);
    expect(download.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await download.arrayBuffer()).equals(ark.videoBytes(upstreamId))).to.equal(true);
  });

  it('creates on OpenAI videos with size and input_reference, downloads the video and its thumbnail', async () => {
    const sora = gateway.simulators.get('sandbox-openai-videos') as OpenAIVideosSimulator;
    const created = await client.videos.create({
      model: 'sandbox/compatible-video',
      prompt: 'a wave [[sim queued_ms=0 running_ms=100]]',
      seconds: '8',
      size: '720x1280',
      input_reference: { image_url: 'https://example.com/start.png' },
    });
    expect(sora.submissions.at(-1)).to.deep.equal({
      model: 'sora-2',
      prompt: 'a wave [[sim queued_ms=0 running_ms=100]]',
      seconds: '8',
      size: '720x1280',
      input_reference: { image_url: 'https://example.com/start.png' },
    });
    const task = await poll(created.id);
    expect(task).to.include({ status: 'completed', size: '720x1280', seconds: '8' });
    expect(task.billing).to.deep.include({ amount: '0.800000', seconds: 8 }); // 8 s x 0.10 at 720p
    const upstreamId = (await gateway.db('video_tasks').where({ id: created.id }).first()).upstream_task_id as string;
    const video = await client.videos.downloadContent(created.id);
    expect(Buffer.from(await video.arrayBuffer()).equals(sora.contentBytes(upstreamId))).to.equal(true);
    const thumbnail = await client.videos.downloadContent(created.id, { variant: 'thumbnail' });
    expect(thumbnail.headers.get('content-type')).to.equal('image/webp');
    expect(Buffer.from(await thumbnail.arrayBuffer()).equals(sora.contentBytes(upstreamId, 'thumbnail'))).to.equal(true);
  });

  it('lists through the SDK’s cursor pages', async () => {
    const seen: string[] = [];
    for await (const video of client.videos.list({ limit: 1 })) seen.push(video.id);
    const mine = await gateway
      .db('video_tasks')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .pluck('id');
    expect(seen).to.deep.equal(mine);
    expect(seen.length).to.be.greaterThan(1);
    const ascending = await client.videos.list({ order: 'asc' });
    expect(ascending.data.map((v) => v.id)).to.deep.equal([...mine].reverse());
  });

  it('deletes (cancels) a queued task of a cancellable plan; a 409 is final for the SDK', async () => {
    const created = await client.videos.create({ model: 'sandbox/seedance', prompt: 'slow [[sim queued_ms=60000]]', seconds: '5' } as never);
    const deleted = (await client.videos.delete(created.id)) as unknown as Task;
    expect(deleted).to.include({ id: created.id, object: 'video', status: 'failed', task_status: 'cancelled' });
    expect(deleted.error).to.deep.include({ code: 'cancelled' });
    const again = await client.videos.delete(created.id).catch((error: unknown) => error);
    expect(again).to.be.instanceOf(OpenAI.ConflictError);
    expect((again as InstanceType<typeof OpenAI.ConflictError>).headers?.get('x-should-retry')).to.equal('false');
    let deletes = 0;
    const counting: typeof fetch = (input, init) => ((deletes += init?.method === 'DELETE' ? 1 : 0), fetch(input, init));
    const retrying = new OpenAI({ apiKey: client.apiKey, baseURL: client.baseURL, maxRetries: 2, fetch: counting });
    await retrying.videos.delete(created.id).catch(() => undefined);
    expect(deletes).to.equal(1); // the SDK retries 409s unless told not to
  });
});
