import { expect } from 'chai';
import { SignJWT } from 'jose';
import { startKlingSimulator, type KlingSimulator } from '../../../src/sandbox/kling/server.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { exchangeProblems, expectVideoUpstreamsOnContract, pauseEnded, videoCalls } from '../../helpers/videos.ts';
import { validateUpstreamResponse } from '../../helpers/upstream-contract.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';
const MODEL = 'sandbox/kling-v2-6'; // std 0.07 / s, pro 0.12 / s

describe('video tasks on Kling (simulated upstream, real HTTP)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let kling: KlingSimulator;
  let customerId: string;
  let calls: ReturnType<typeof videoCalls>;

  before(async () => {
    gateway = await startTestGateway();
    kling = gateway.simulators.get('sandbox-kling') as KlingSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    const customer = await fundedCustomer(gateway, { balance: '5.00' });
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
  const upstreamCalls = () =>
    kling.exchanges
      .filter((e) => !e.path.startsWith('/assets/'))
      .map((e) => `${e.method} ${e.path.replace(/[^/]+$/, (id) => (e.method === 'GET' ? '{id}' : id))}`);

  it('text to video: submitted with a signed token, polled at its kind’s path, settled once on the delivered seconds at its mode', async () => {
    const created = await calls.create({
      model: MODEL,
      prompt: `a lighthouse at dusk ${QUICK} [[sim duration=10.2]]`,
      seconds: 5,
      resolution: 'pro',
      ratio: '16:9',
      generate_audio: true,
    });
    expect(created.status).to.equal(202);
    const id = created.body.task_id as string;
    expect(kling.submissions).to.deep.equal([
      {
        kind: 'text2video',
        body: {
          model_name: 'kling-v2-6',
          prompt: `a lighthouse at dusk ${QUICK} [[sim duration=10.2]]`,
          mode: 'pro',
          duration: '5',
          sound: 'on',
          aspect_ratio: '16:9',
        },
      },
    ]);
    expect(await wallet()).to.include({ reserved: '0.600000', debits: '0.000000' }); // 5 s x 0.12, as asked
    const task = await calls.finish(id);
    expect(task).to.include({ status: 'completed', task_status: 'completed', seconds: '10', size: '1920x1080' });
    // Kling delivered 10.2 s: billed 10 whole seconds at pro, beyond the reservation.
    expect(task.billing).to.deep.equal({ amount: '1.200000', currency: 'USD', seconds: 10, resolution: 'pro', price_version: 1 });
    expect(await wallet()).to.include({ debits: '1.200000', reserved: '0.000000', available: '3.800000' });
    const settles = (await journal()).filter((e) => e.kind === 'settle');
    expect(settles.map((e) => [e.reservation_ref, e.amount])).to.deep.equal([[id, '1.200000']]);
    expect(settles[0].purpose).to.include({ billed_seconds: 10, tier: 'pro' });
    // Kling's task id never shows; the platform's stands in its place.
    const klingId = [...kling.tasks.keys()][0]!;
    expect(task.result.task_id).to.equal(id);
    expect(task.result.task_result.videos[0]).to.include({ duration: '10.2' });
    expect(task.result.task_result.videos[0].url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/assets\/[0-9a-f]+\.mp4$/);
    expect(JSON.stringify(task)).to.not.include(klingId);
    expect(JSON.stringify(task)).to.not.include('"kling-v2-6"'); // the upstream model name (the public id is sandbox/kling-v2-6)
    expect(upstreamCalls().every((c) => c === 'POST /v1/videos/text2video' || c === 'GET /v1/videos/text2video/{id}')).to.equal(true);
    expect(kling.exchanges.every((e) => e.authorized)).to.equal(true);
    // Another poll settles nothing twice.
    await gateway.services.videoWorker.processBatch();
    expect((await journal()).filter((e) => e.kind === 'settle')).to.have.length(1);
  });

  it('image to video: first and last frames, polled at the image2video path, downloaded byte for byte', async () => {
    const created = await calls.create({
      model: MODEL,
      prompt: `a door opens ${QUICK}`,
      seconds: 5,
      content: [
        { type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' }, role: 'last_frame' },
      ],
    });
    expect(created.status).to.equal(202);
    expect(kling.submissions[0]).to.deep.equal({
      kind: 'image2video',
      body: {
        model_name: 'kling-v2-6',
        prompt: `a door opens ${QUICK}`,
        mode: 'std',
        duration: '5',
        image: 'https://example.com/first.png',
        image_tail: 'iVBORw0KGgo=',
      },
    });
    const id = created.body.task_id as string;
    const task = await calls.finish(id);
    expect(task.billing).to.deep.include({ amount: '0.350000', seconds: 5, resolution: 'std' }); // 5 s x 0.07
    expect(upstreamCalls()).to.include('GET /v1/videos/image2video/{id}');
    expect(upstreamCalls()).to.not.include('GET /v1/videos/text2video/{id}');

    const klingId = [...kling.tasks.keys()][0]!;
    const download = await calls.content(id);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.equal('video/mp4');
    expect(Buffer.from(await download.arrayBuffer()).equals(kling.videoBytes(klingId))).to.equal(true);
    const part = await calls.content(id, { headers: { range: 'bytes=100-199' } });
    expect(part.status).to.equal(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(kling.videoBytes(klingId).subarray(100, 200))).to.equal(true);
    // The CDN file is fetched without our token.
    expect(kling.exchanges.filter((e) => e.path.startsWith('/assets/')).every((e) => !e.authorized)).to.equal(true);
  });

  it('a failed task releases its hold: nothing charged, Kling’s reason shown', async () => {
    const created = await calls.create({ model: MODEL, prompt: `x ${QUICK} [[sim fail]]`, seconds: 10 });
    expect(await wallet()).to.include({ reserved: '0.700000' });
    const task = await calls.finish(created.body.task_id);
    expect(task).to.include({ status: 'failed', task_status: 'failed', billing: null });
    expect(task.error).to.deep.equal({ code: 'generation_failed', message: 'Failure to pass the risk control system' });
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000', available: '5.000000' });
    expect((await journal()).map((e) => e.kind))
      .to.include('release')
      .and.not.include('settle');
  });

  it('no duration, or videos that disagree on it: review, the hold kept for an operator', async () => {
    const absent = await calls.create({ model: MODEL, prompt: `x ${QUICK} [[sim no_duration]]`, seconds: 5 });
    const disagree = await calls.create({ model: MODEL, prompt: `y ${QUICK} [[sim video_durations=5,10]]`, seconds: 5 });
    for (const id of [absent.body.task_id, disagree.body.task_id]) {
      const task = await calls.finish(id);
      expect(task).to.include({ task_status: 'review', status: 'in_progress', billing: null });
      expect(task.error.code).to.equal('no_duration');
    }
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.700000' }); // two holds of 5 s x 0.07
  });

  it('cancel is refused as for any plan without cancel (409), nothing is sent upstream, the task goes on', async () => {
    const created = await calls.create({ model: MODEL, prompt: 'slow [[sim queued_ms=60000]]', seconds: 5 });
    const cancel = await calls.cancel(created.body.task_id);
    expect(cancel.status).to.equal(409);
    expect(cancel.body.error).to.include({ type: 'invalid_request_error', code: 'cancel_not_supported' });
    expect(kling.exchanges.map((e) => e.method)).to.deep.equal(['POST']);
    expect((await calls.get(created.body.task_id)).body.task_status).to.equal('queued');
    expect(await wallet()).to.include({ reserved: '0.350000' });
  });

  it('the account’s concurrency refusal (1303) waits in the gateway’s queue; arrears and an empty pack are the gateway’s own 502; nothing charged', async () => {
    const full = await calls.create({ model: MODEL, prompt: 'x [[sim reject=1303]]', seconds: 5 });
    expect(full.status).to.equal(202);
    expect((await calls.get(full.body.task_id)).body).to.include({ task_status: 'queued', queue_position: 1 });
    const left = await calls.cancel(full.body.task_id); // cancelled while waiting: its hold released at once
    expect(left.body).to.include({ task_status: 'cancelled', queue_position: null });
    await pauseEnded(gateway); // the 1303 paused the account: creates within the pause would wait too
    for (const code of [1101, 1102]) {
      const account = await calls.create({ model: MODEL, prompt: `x [[sim reject=${code}]]`, seconds: 5 });
      expect(account.status, String(code)).to.equal(502);
      expect(account.body.error).to.include({
        type: 'api_error',
        code: 'upstream_error',
        message: 'The provider failed to accept the task. Nothing was charged.',
      });
      expect(JSON.stringify(account.body)).to.not.match(/arrears|resource pack|1101|1102/i);
    }
    const policy = await calls.create({ model: MODEL, prompt: 'x [[sim reject]]', seconds: 5 });
    expect(policy.status).to.equal(400);
    expect(policy.body.error.message).to.match(/^The provider rejected the request: Failure to pass the risk control system/);
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000', available: '5.000000' });
    const kinds = (await journal()).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'reserve')).to.have.length(4);
    expect(kinds.filter((k) => k === 'release')).to.have.length(4);
    expect(kling.exchanges.map((e) => e.status)).to.deep.equal([429, 429, 429, 400]);
  });

  it('what Kling cannot carry is refused with 400 before any call: a ratio (or size) beside an image', async () => {
    const refused = await calls.create({
      model: MODEL,
      prompt: 'x',
      seconds: 5,
      size: '1280x720',
      input_reference: { image_url: 'https://example.com/first.png' },
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.message).to.match(/ratio \(or size\) cannot be given with an image input/);
    expect(kling.exchanges).to.deep.equal([]);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
  });
});

describe('the simulated Kling', function () {
  this.timeout(30_000);
  let kling: KlingSimulator;
  const AK = 'sandbox-kling-access-key';
  const SK = new TextEncoder().encode('sandbox-kling-secret-key');
  beforeEach(async () => (kling = await startKlingSimulator({ queuedMs: 0, runningMs: 0, concurrency: 2 })));
  afterEach(async () => {
    // Every answer is on contract; so is every request it accepted (the tests send refused ones on purpose).
    const problems = kling.exchanges.flatMap((e) =>
      e.status < 400 ? exchangeProblems('kling-video', e) : validateUpstreamResponse('kling-video', e.method, e.path, e.status, e.body, e.contentType),
    );
    expect(problems).to.deep.equal([]);
    await kling.close();
  });

  const sign = (claims: { iss?: string; exp?: number; nbf?: number }, secret = SK, typ = 'JWT') =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ })
      .setIssuer(claims.iss ?? AK)
      .setExpirationTime(claims.exp!)
      .setNotBefore(claims.nbf!)
      .sign(secret);
  const now = () => Math.floor(Date.now() / 1000);
  const valid = () => sign({ exp: now() + 1800, nbf: now() - 5 });
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${kling.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const t2v = { model_name: 'kling-v2-6', prompt: 'a cat', duration: '5', mode: 'std' };

  it('verifies the JWT of every call: missing 1001, forged or malformed 1002, not yet valid 1003, expired 1004, another account 1000', async () => {
    expect((await post('/v1/videos/text2video', t2v)).body.code).to.equal(1001);
    const cases: Array<[Promise<string>, number]> = [
      [sign({ exp: now() + 1800, nbf: now() - 5 }, new TextEncoder().encode('not-the-secret')), 1002],
      [Promise.resolve('not.a.jwt'), 1002],
      [sign({ exp: now() + 1800, nbf: now() + 600 }), 1003],
      [sign({ exp: now() - 60, nbf: now() - 1900 }), 1004],
      [sign({ iss: 'another-access-key', exp: now() + 1800, nbf: now() - 5 }), 1000],
    ];
    for (const [token, code] of cases) {
      const answer = await post('/v1/videos/text2video', t2v, await token);
      expect(answer.status, String(code)).to.equal(401);
      expect(answer.body).to.include({ code }).and.have.property('request_id');
    }
    expect(kling.submissions).to.deep.equal([]);
    expect((await post('/v1/videos/text2video', t2v, await valid())).body.code).to.equal(0);
  });

  it('refuses undocumented fields and values (1201), an unknown model (1203), and a task asked at another kind’s path', async () => {
    const token = await valid();
    expect((await post('/v1/videos/text2video', { ...t2v, seconds: 5 }, token)).body).to.include({ code: 1201 });
    expect((await post('/v1/videos/text2video', { ...t2v, duration: 5 }, token)).body).to.include({ code: 1201 });
    expect((await post('/v1/videos/image2video', { ...t2v, image: 'https://example.com/a.png', aspect_ratio: '16:9' }, token)).body).to.include({ code: 1201 });
    expect((await post('/v1/videos/image2video', { ...t2v, image: 'data:image/png;base64,AAAA' }, token)).body).to.include({ code: 1201 });
    expect((await post('/v1/videos/image2video', t2v, token)).body).to.include({ code: 1201 }); // no image at all
    const unknown = await post('/v1/videos/text2video', { ...t2v, model_name: 'sora-2' }, token);
    expect(unknown).to.deep.include({ status: 404 });
    expect(unknown.body.code).to.equal(1203);
    const created = await post('/v1/videos/text2video', t2v, token);
    const id = created.body.data.task_id as string;
    const at = async (kind: string) => fetch(`${kling.baseUrl}/v1/videos/${kind}/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const right = await at('text2video');
    expect(right.status).to.equal(200);
    expect(((await right.json()) as any).data).to.include({ task_id: id, task_status: 'succeed' });
    const wrong = await at('image2video');
    expect(wrong.status).to.equal(404);
    expect(((await wrong.json()) as any).code).to.equal(1203);
  });

  it('refuses a create over the account’s concurrency with 1303 until a task ends', async () => {
    await kling.close();
    kling = await startKlingSimulator({ queuedMs: 0, runningMs: 400, concurrency: 2 });
    const token = await valid();
    expect((await post('/v1/videos/text2video', t2v, token)).body.code).to.equal(0);
    expect((await post('/v1/videos/text2video', t2v, token)).body.code).to.equal(0);
    const full = await post('/v1/videos/text2video', t2v, token);
    expect(full.status).to.equal(429);
    expect(full.body).to.include({ code: 1303, message: 'parallel task over resource pack limit' });
    expect(validateUpstreamResponse('kling-video', 'POST', '/v1/videos/text2video', 429, full.body)).to.deep.equal([]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await post('/v1/videos/text2video', t2v, token)).body.code).to.equal(0);
  });
});
