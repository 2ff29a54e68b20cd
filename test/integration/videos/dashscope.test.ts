import { expect } from 'chai';
import { startDashScopeSimulator, type DashScopeSimulator } from '../../../src/sandbox/dashscope/server.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { validateUpstreamResponse } from '../../helpers/upstream-contract.ts';
import { expectVideoUpstreamsOnContract, pauseEnded, videoCalls } from '../../helpers/videos.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';
const T2V = 'sandbox/wan2.7-t2v';

describe('video tasks on Alibaba Wan (DashScope), against its simulator over HTTP', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let dashscope: DashScopeSimulator;
  let customerId: string;
  let calls: ReturnType<typeof videoCalls>;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith() }); // a copy: tests rewrite it (reset puts it back)
    dashscope = gateway.simulators.get('sandbox-dashscope') as DashScopeSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    const customer = await fundedCustomer(gateway, { balance: '10.00' });
    customerId = customer.customerId;
    calls = videoCalls(gateway, customer.key);
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  const journal = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger`)).body.data as any[];
  const upstreamIdOf = async (id: string) => (await gateway.db('video_tasks').where({ id }).first()).upstream_task_id as string;

  it('create -> poll -> settle: the async header sent, settled once at the metered tier, expires_at from the signed URL', async () => {
    const created = await calls.create({ model: T2V, prompt: `a heron ${QUICK}`, seconds: 5, resolution: '1080p', ratio: '9:16', watermark: false });
    expect(created.status).to.equal(202);
    expect(created.body).to.deep.equal({ task_id: created.body.task_id, id: created.body.task_id });
    expect((await wallet()).reserved).to.equal('0.750000'); // 5 s x 0.15 at 1080p
    // DashScope refuses a create without X-DashScope-Async: enable, so a task id proves it was sent.
    expect(dashscope.submissions).to.deep.equal([
      { model: 'wan2.7-t2v', input: { prompt: `a heron ${QUICK}` }, parameters: { resolution: '1080P', ratio: '9:16', duration: 5, watermark: false } },
    ]);

    const task = await calls.finish(created.body.task_id);
    expect(task).to.include({ status: 'completed', task_status: 'completed', seconds: '5', size: '1080x1920' });
    expect(task.billing).to.deep.equal({ amount: '0.750000', currency: 'USD', seconds: 5, resolution: '1080p', price_version: 1 });
    expect(await wallet()).to.include({ debits: '0.750000', reserved: '0.000000', available: '9.250000' });
    const upstreamId = await upstreamIdOf(created.body.task_id);
    expect(task.result.output.task_id).to.equal(created.body.task_id);
    expect(task.result.usage).to.deep.include({ output_video_duration: 5, input_video_duration: 0, SR: 1080 });
    expect(task.result).to.not.have.property('request_id');
    expect(JSON.stringify(task)).to.not.include(upstreamId);
    const expires = Number(/[?&]Expires=(\d+)/.exec(task.result.output.video_url)![1]);
    expect(task.expires_at).to.equal(expires);
    expect(expires - Date.now() / 1000).to.be.within(23 * 3600, 24 * 3600 + 60); // kept 24 h

    await gateway.services.videoWorker.processBatch(); // nothing settles twice
    const settles = (await journal()).filter((e) => e.kind === 'settle');
    expect(settles.map((e) => e.amount)).to.deep.equal(['0.750000']);
    expect(settles[0].purpose).to.deep.include({ billed_seconds: 5, tier: '1080p' });
  });

  it('reference-to-video: references become media, and the input video seconds DashScope bills are charged too', async () => {
    const created = await calls.create({
      model: 'sandbox/wan2.7-r2v',
      prompt: `Video 1 dances with Image 1 ${QUICK} [[sim input_seconds=2.4]]`,
      seconds: 5,
      resolution: '720p',
      content: [{ type: 'video_url', video_url: { url: 'https://example.com/dancer.mp4' }, role: 'reference_video' }],
      reference_images: [{ url: 'https://example.com/cat.png' }],
    });
    expect(created.status).to.equal(202);
    expect(dashscope.submissions[0]!.input).to.deep.equal({
      prompt: `Video 1 dances with Image 1 ${QUICK} [[sim input_seconds=2.4]]`,
      media: [
        { type: 'reference_video', url: 'https://example.com/dancer.mp4' },
        { type: 'reference_image', url: 'https://example.com/cat.png' },
      ],
    });
    // The hold covers the output and the reference video at the most the model bills for one
    // (its longest output, 10 s, as it declares no length): 15 s x 0.10.
    expect((await wallet()).reserved).to.equal('1.500000');
    const task = await calls.finish(created.body.task_id);
    // 5 s out + 2.4 s in = 7.4 s, billed as 7 whole seconds at 720p.
    expect(task.billing).to.deep.include({ amount: '0.700000', seconds: 7, resolution: '720p' });
    expect(task.result.usage).to.deep.include({ duration: 7.4, input_video_duration: 2.4, output_video_duration: 5 });
    expect(await wallet()).to.include({ debits: '0.700000', reserved: '0.000000' });
  });

  it('a failed task releases its hold; unconfirmable usage goes to review and keeps it', async () => {
    const failed = await calls.create({ model: T2V, prompt: `x ${QUICK} [[sim fail]]`, seconds: 4 });
    const done = await calls.finish(failed.body.task_id);
    expect(done).to.include({ status: 'failed', task_status: 'failed', billing: null });
    expect(done.error).to.deep.equal({ code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' });
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000' });

    const reviews: Array<[string, string, RegExp]> = [
      ['no_duration', 'no_duration', /did not report the delivered duration/], // no usage at all
      ['sr=1080', 'contradictory_usage', /metered the tier 1080p; the task was priced at 720p/],
      ['total=9', 'contradictory_usage', /usage.duration 9.000 s is not input 0.000 s \+ output 4.000 s/],
      ['status=UNKNOWN', 'upstream_task_unknown', /no longer knows the task/],
    ];
    for (const [directive, code, message] of reviews) {
      const created = await calls.create({ model: T2V, prompt: `x ${QUICK} [[sim ${directive}]]`, seconds: 4, resolution: '720p' });
      const held = await calls.finish(created.body.task_id);
      expect(held.task_status, directive).to.equal('review');
      expect(held.status, directive).to.equal('in_progress');
      expect(held.billing, directive).to.equal(null);
      expect(held.error.code, directive).to.equal(code);
      expect(held.error.message, directive).to.match(message);
    }
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '1.600000' }); // four holds of 4 s x 0.10
    // An operator settles one by hand; the journal says who.
    const [first] = await gateway.db('video_tasks').where({ status: 'review' }).orderBy('created_at').pluck('id');
    const resolved = await gateway.admin('POST', `/admin/v1/video-tasks/${first}/resolve`, { action: 'release', actor: 'ops@x', reason: 'no file' });
    expect(resolved.body.status).to.equal('failed');
    expect((await wallet()).reserved).to.equal('1.200000');
  });

  it('cancel while PENDING releases the hold at once and charges nothing; RUNNING is refused with 409 and goes on', async () => {
    const queued = await calls.create({ model: T2V, prompt: 'slow [[sim queued_ms=60000]]', seconds: 5 });
    await gateway.services.videoWorker.processBatch();
    expect((await wallet()).reserved).to.equal('0.500000');
    const cancelled = await calls.cancel(queued.body.task_id);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body).to.include({ status: 'failed', task_status: 'cancelled' });
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000', available: '10.000000' });
    const upstreamId = await upstreamIdOf(queued.body.task_id);
    expect(dashscope.exchanges.filter((e) => e.method === 'POST' && e.path === `/api/v1/tasks/${upstreamId}/cancel`).map((e) => e.status)).to.deep.equal([200]);
    const upstream = await fetch(`${dashscope.baseUrl}/api/v1/tasks/${upstreamId}`, { headers: { authorization: 'Bearer sk-test' } });
    expect(((await upstream.json()) as any).output.task_status).to.equal('CANCELED');
    expect((await journal()).filter((e) => e.kind === 'release')).to.have.length(1);

    const running = await calls.create({ model: T2V, prompt: 'busy [[sim queued_ms=0 running_ms=600]]', seconds: 5 });
    const refused = await calls.cancel(running.body.task_id);
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('cancel_refused');
    expect(dashscope.exchanges.filter((e) => e.path.endsWith('/cancel')).map((e) => e.status)).to.deep.equal([200, 400]);
    expect((await calls.get(running.body.task_id)).body.task_status).to.equal('in_progress');
    expect((await wallet()).reserved).to.equal('0.500000'); // still held: the task goes on
    const done = await calls.finish(running.body.task_id);
    expect(done.billing).to.deep.include({ amount: '0.500000', seconds: 5 });
  });

  it('downloads the bytes (and a range) while DashScope keeps them; gone after its 24 hours, or once the URL expired', async () => {
    const created = await calls.create({ model: T2V, prompt: `x ${QUICK} [[sim bytes=300000]]`, seconds: 2 });
    await calls.finish(created.body.task_id);
    const upstreamId = await upstreamIdOf(created.body.task_id);
    const whole = await calls.content(created.body.task_id);
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await whole.arrayBuffer()).equals(dashscope.videoBytes(upstreamId))).to.equal(true);
    const part = await calls.content(created.body.task_id, { headers: { range: 'bytes=100-199' } });
    expect(part.status).to.equal(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(dashscope.videoBytes(upstreamId).subarray(100, 200))).to.equal(true);

    dashscope.expire(upstreamId);
    const gone = await calls.content(created.body.task_id);
    expect(gone.status).to.equal(404);
    expect(((await gone.json()) as any).error.code).to.equal('content_not_available');
    expect((await calls.get(created.body.task_id)).body.task_status).to.equal('completed'); // settled stays settled

    const shortLived = await calls.create({ model: T2V, prompt: `x ${QUICK} [[sim url_ttl_ms=0]]`, seconds: 2 });
    await calls.finish(shortLived.body.task_id);
    const expired = await calls.content(shortLived.body.task_id);
    expect(expired.status).to.equal(404);
    expect(((await expired.json()) as any).error.code).to.equal('content_not_available');
  });

  it("throttling waits in the gateway's queue (provider_concurrency), arrears a provider failure not forwarded, a refused parameter a clear 400", async () => {
    const throttled = await calls.create({ model: T2V, prompt: 'x [[sim reject=429]]', seconds: 5 });
    expect(throttled.status).to.equal(202);
    expect((await calls.get(throttled.body.task_id)).body).to.include({ task_status: 'queued', queue_position: 1 });
    const left = await calls.cancel(throttled.body.task_id); // cancelled while waiting: its hold released at once
    expect(left.body).to.include({ task_status: 'cancelled', queue_position: null });
    await pauseEnded(gateway); // the throttle paused the account: creates within the pause would wait too
    const arrears = await calls.create({ model: T2V, prompt: 'x [[sim arrears]]', seconds: 5 });
    expect(arrears.status).to.equal(502);
    expect(JSON.stringify(arrears.body)).to.not.match(/Arrearage|plesase|good standing/);
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000' });

    // An operator offers 20 s on Wan 2.7 (the protocol carries up to 30 s; the model takes 15).
    const reload = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { [T2V]: (m) => void m.video!.seconds.push(20) } }));
    expect(reload.status).to.equal(200);
    const refused = await calls.create({ model: T2V, prompt: 'x', seconds: 20 });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.message).to.equal(
      'The provider rejected the request: The parameter `parameters.duration` is out of range: 20. Nothing was charged.',
    );
    expect(dashscope.exchanges.filter((e) => e.status >= 400).map((e) => [e.status, (e.body as any).code])).to.deep.equal([
      [429, 'Throttling.RateQuota'],
      [400, 'Arrearage'],
      [400, 'InvalidParameter'],
    ]);
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000', available: '10.000000' });
  });

  it('the simulator refuses what DashScope refuses, in its error shape: no async header, no key, values it does not take', async () => {
    // Its own instance: these requests are off contract on purpose, and the gateway's is checked after each test.
    const alone = await startDashScopeSimulator();
    try {
      const post = (headers: Record<string, string>, body: unknown) =>
        fetch(`${alone.baseUrl}/api/v1/services/aigc/video-generation/video-synthesis`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const body = { model: 'wan2.7-t2v', input: { prompt: 'x' }, parameters: { resolution: '720P', duration: 5 } };
      const check = async (response: Response, status: number, code: string) => {
        const json = (await response.json()) as any;
        expect([response.status, json.code]).to.deep.equal([status, code]);
        expect(validateUpstreamResponse('dashscope-video', 'POST', '/api/v1/services/aigc/video-generation/video-synthesis', status, json)).to.deep.equal([]);
      };
      await check(await post({ authorization: 'Bearer sk-1' }, body), 403, 'AccessDenied');
      await check(await post({ 'x-dashscope-async': 'enable' }, body), 401, 'InvalidApiKey');
      const auth = { authorization: 'Bearer sk-1', 'x-dashscope-async': 'enable' };
      await check(await post(auth, { ...body, parameters: { resolution: '480P' } }), 400, 'InvalidParameter'); // Wan 2.7: 720P or 1080P
      await check(await post(auth, { ...body, input: { prompt: 'x', media: [{ type: 'poster', url: 'u' }] } }), 400, 'InvalidParameter');
      const accepted = await post(auth, body);
      const task = (await accepted.json()) as any;
      expect([accepted.status, task.output.task_status]).to.deep.equal([200, 'PENDING']);
      expect(validateUpstreamResponse('dashscope-video', 'POST', '/api/v1/services/aigc/video-generation/video-synthesis', 200, task)).to.deep.equal([]);
    } finally {
      await alone.close();
    }
  });
});
