import { expect } from 'chai';
import OpenAI from 'openai';
import type { Video } from 'openai/resources/videos';
import type { VertexVeoSimulator } from '../../src/sandbox/vertex-veo/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract } from '../helpers/videos.ts';

// Veo on Vertex AI end to end: the official openai SDK's videos.* and plain HTTP against a running
// gateway whose sandbox Vertex (token endpoint, operations, bucket) is real HTTP on loopback.
type Task = Video & { task_id: string; task_status: string; billing: { amount: string; seconds: number; resolution: string } | null };

describe('Veo on Vertex AI end to end: the official openai SDK (videos.*) and plain HTTP', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let client: OpenAI;
  let apiKey: string;
  let customerId: string;
  let veo: VertexVeoSimulator;

  before(async () => {
    gateway = await startTestGateway();
    ({ key: apiKey, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: 'fund' });
    client = new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    veo = gateway.simulators.get('sandbox-vertex-veo') as VertexVeoSimulator;
  });
  after(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  const upstreamIdOf = async (id: string) => (await gateway.db('video_tasks').where({ id }).first()).upstream_task_id as string;

  it('videos.create (multipart, with sound), retrieve until completed, downloadContent, and delete refused', async () => {
    const created = await client.videos.create({
      model: 'sandbox/veo-3.1',
      prompt: 'a paper boat on a river [[sim queued_ms=50 running_ms=100]]',
      seconds: '8',
      size: '720x1280',
      generate_audio: true,
    } as never);
    expect(created.id).to.match(/^vt_/);
    expect(veo.submissions.at(-1)!.parameters).to.deep.include({ durationSeconds: 8, resolution: '720p', aspectRatio: '9:16', generateAudio: true });
    let video = (await client.videos.retrieve(created.id)) as Task;
    const deadline = Date.now() + 10_000;
    while ((video.status === 'queued' || video.status === 'in_progress') && Date.now() < deadline) {
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 50));
      video = (await client.videos.retrieve(created.id)) as Task;
    }
    expect(video).to.include({ status: 'completed', task_status: 'completed', seconds: '8', size: '720x1280', progress: 100 });
    expect(video.billing).to.deep.include({ amount: '3.200000', seconds: 8, resolution: '720p+audio' }); // 8 s x 0.40

    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await content.arrayBuffer()).equals(veo.videoBytes(await upstreamIdOf(created.id)))).to.equal(true);

    const refused = await client.videos.delete(created.id).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(OpenAI.ConflictError);
    expect((refused as InstanceType<typeof OpenAI.ConflictError>).headers?.get('x-should-retry')).to.equal('false');
  });

  it('plain HTTP: JSON create, GET until completed, the content with a Range, the wallet', async () => {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const create = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'sandbox/veo-3.1', prompt: 'a kite [[sim queued_ms=0 running_ms=0]]', seconds: 4, resolution: '1080p', ratio: '16:9' }),
    });
    expect(create.status).to.equal(202);
    const { task_id } = (await create.json()) as { task_id: string };
    let task = (await (await fetch(`${gateway.url}/v1/videos/${task_id}`, { headers })).json()) as Task;
    for (const deadline = Date.now() + 10_000; task.status !== 'completed' && Date.now() < deadline;) {
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 50));
      task = (await (await fetch(`${gateway.url}/v1/videos/${task_id}`, { headers })).json()) as Task;
    }
    expect(task.billing).to.deep.include({ amount: '1.200000', seconds: 4, resolution: '1080p' }); // 4 s x 0.30, no sound asked
    const part = await fetch(`${gateway.url}/v1/videos/${task_id}/content`, { headers: { ...headers, range: 'bytes=0-15' } });
    expect(part.status).to.equal(206);
    const bytes = Buffer.from(await part.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).to.equal('ftyp');
    expect(bytes.equals(veo.videoBytes(await upstreamIdOf(task_id)).subarray(0, 16))).to.equal(true);
    const wallet = (await (await fetch(`${gateway.url}/v1/wallet`, { headers })).json()) as Record<string, unknown>;
    expect(wallet).to.deep.include({ reserved: '0.000000' });
    expect((await gateway.wallet(customerId)).debits).to.equal('4.400000'); // 3.20 + 1.20
  });
});
