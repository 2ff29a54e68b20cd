import { expect } from 'chai';
import OpenAI from 'openai';
import type { ArkSimulator } from '../../src/sandbox/ark/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

// The SDK's Video type describes OpenAI's object; the gateway answers with its own task envelope,
// which the SDK passes through untouched (it does not validate at run time).
type Task = { id: string; status: string; task_status: string; billing: { amount: string; seconds: number } | null; result: Record<string, unknown> | null };

describe('official openai SDK: videos.create (multipart), retrieve until completed, delete', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let client: OpenAI;
  const contentTypes: string[] = [];

  before(async () => {
    gateway = await startTestGateway();
    const { key, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const recording: typeof fetch = (input, init) => {
      if (init?.method === 'POST') contentTypes.push(init.body instanceof FormData ? 'multipart/form-data' : new Headers(init.headers).get('content-type') ?? '');
      return fetch(input, init);
    };
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, fetch: recording });
  });
  after(async () => gateway.close());

  it('creates with multipart form data, then retrieves until completed and settled', async () => {
    const ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
    const created = (await client.videos.create({
      model: 'sandbox/seedance',
      prompt: 'a red fox in the snow [[sim queued_ms=100 running_ms=100]]',
      seconds: '10',
      resolution: '720p',
      ratio: '16:9',
      generate_audio: false,
      content: [{ type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' }],
    } as never)) as unknown as { task_id: string };
    expect(created).to.include({ id: created.task_id, object: 'video', status: 'queued' });
    expect(contentTypes[0]).to.match(/^multipart\/form-data/);
    expect(ark.submissions.at(-1)).to.deep.include({ duration: 10, resolution: '720p', ratio: '16:9', generate_audio: false });
    expect((ark.submissions.at(-1)!.content as unknown[])[1]).to.deep.equal({ type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' });

    let task: Task;
    const deadline = Date.now() + 10_000;
    do {
      await gateway.services.videoWorker.processBatch();
      task = (await client.videos.retrieve(created.task_id)) as unknown as Task;
    } while (task.status !== 'completed' && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 50)), true));
    expect(task.status).to.equal('completed');
    // 10 free seconds a day on sandbox/seedance: this first task costs nothing, and says so.
    expect(task.billing).to.deep.include({ amount: '0.000000', seconds: 10 });
    expect(task.result?.id).to.equal(created.task_id);
  });

  it('deletes a queued task of a cancellable plan', async () => {
    const created = (await client.videos.create({ model: 'sandbox/seedance', prompt: 'slow [[sim queued_ms=60000]]', seconds: '5' } as never)) as unknown as { task_id: string };
    const deleted = (await client.videos.delete(created.task_id)) as unknown as Task;
    expect(deleted).to.include({ id: created.task_id, status: 'failed', task_status: 'cancelled' });
  });
});
