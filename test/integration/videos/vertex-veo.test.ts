import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startVertexVeoSimulator, type VertexVeoSimulator } from '../../../src/sandbox/vertex-veo/server.ts';
import { DEFAULT_ASSET_BYTES } from '../../../src/sandbox/task-book.ts';
import { changeCatalogue, sampleCatalogueText, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { exchangeProblems, expectVideoUpstreamsOnContract, vertexApiOf, videoCalls } from '../../helpers/videos.ts';

// Veo on Vertex AI over real HTTP, against the simulated Vertex (its OAuth token endpoint, the
// operations, the Cloud Storage bucket): priced at acceptance and settled on the requested seconds
// x tier x sound (Vertex reports no usage), failures and filtered media released, a success
// without a video held for review, no cancel, and the video streamed from the operator's bucket
// with the service account's token. Every exchange is checked against openapi/upstream.
const QUICK = '[[sim queued_ms=0 running_ms=0]]';
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe('video tasks on Veo (Vertex AI), simulated', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let veo: VertexVeoSimulator;
  let customerId: string;
  let v: ReturnType<typeof videoCalls>;

  beforeEach(async () => {
    gateway = await startTestGateway();
    const customer = await gateway.customerWithKey();
    customerId = customer.customerId;
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '20.00', reference: 'fund' });
    v = videoCalls(gateway, customer.key);
    veo = gateway.simulators.get('sandbox-vertex-veo') as VertexVeoSimulator;
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  const wallet = () => gateway.wallet(customerId);
  const journal = async (ref: string) =>
    ((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger`)).body.data as any[]).filter((e) => e.reservation_ref === ref).reverse(); // oldest first
  const upstreamIdOf = async (id: string) => (await gateway.db('video_tasks').where({ id }).first()).upstream_task_id as string;

  it('settles on the requested seconds at the tier, sound at the +audio tier, with the exact charge in wallet and ledger', async () => {
    const withSound = await v.create({ model: 'sandbox/veo-3.1', prompt: `a fox in the snow ${QUICK}`, seconds: 8, size: '1920x1080', generate_audio: true });
    expect(withSound.status, JSON.stringify(withSound.body)).to.equal(202);
    expect(await wallet()).to.include({ reserved: '4.000000' }); // 8 s x 0.50 (1080p+audio), held at acceptance
    expect(veo.submissions[0]).to.deep.equal({
      instances: [{ prompt: `a fox in the snow ${QUICK}` }],
      parameters: { durationSeconds: 8, resolution: '1080p', aspectRatio: '16:9', generateAudio: true, sampleCount: 1, storageUri: 'gs://sandbox-bucket/veo/' },
    });
    const task = await v.finish(withSound.body.id);
    expect(task).to.include({ status: 'completed', task_status: 'completed', seconds: '8', size: '1920x1080' });
    expect(task.billing).to.deep.equal({ amount: '4.000000', currency: 'USD', seconds: 8, resolution: '1080p+audio', price_version: 1 });

    const silent = await v.create({ model: 'sandbox/veo-3.1', prompt: `a wave ${QUICK}`, seconds: 4 });
    expect(veo.submissions[1]!.parameters).to.deep.include({ durationSeconds: 4, resolution: '720p', generateAudio: false });
    expect(veo.submissions[1]!.parameters).to.not.have.property('aspectRatio');
    expect((await v.finish(silent.body.id)).billing).to.deep.include({ amount: '0.800000', seconds: 4, resolution: '720p' }); // 4 s x 0.20

    expect(await wallet()).to.include({ debits: '4.800000', reserved: '0.000000', available: '15.200000' });
    const rows = await journal(withSound.body.id);
    expect(rows.map((r) => [r.kind, r.amount])).to.deep.equal([
      ['reserve', '4.000000'],
      ['settle', '4.000000'],
    ]);
    expect(rows[1].purpose).to.include({ billed_seconds: 8, tier: '1080p+audio' });
    // The customer's result: the platform id for the operation, no bucket, project or upstream model.
    const upstreamId = await upstreamIdOf(withSound.body.id);
    expect(task.result).to.deep.equal({
      name: withSound.body.id,
      done: true,
      response: { '@type': 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse', videos: [{ mimeType: 'video/mp4' }] },
    });
    expect(JSON.stringify(task)).to.not.match(/gs:\/\/|sandbox-project|veo-3\.1-generate-001/);
    expect(upstreamId).to.match(/^projects\/sandbox-project\/locations\/us-central1\/publishers\/google\/models\/veo-3\.1-generate-001\/operations\//);
    // One access token served every call: the library caches it.
    expect(veo.tokensIssued()).to.equal(1);
    expect(veo.exchanges.filter((e) => e.path.startsWith('/v1/')).every((e) => e.authorized)).to.equal(true);
  });

  it('an operation that ends in an error fails the task and releases the hold; nothing is charged', async () => {
    const created = await v.create({ model: 'sandbox/veo-3.1', prompt: `x ${QUICK} [[sim fail]]`, seconds: 6, generate_audio: true });
    expect(await wallet()).to.include({ reserved: '2.400000' }); // 6 s x 0.40
    const task = await v.finish(created.body.id);
    expect(task).to.include({ status: 'failed', task_status: 'failed' });
    expect(task.error.code).to.equal('INVALID_ARGUMENT');
    expect(task.error.message).to.match(/prompt could not be submitted/);
    expect(task.billing).to.equal(null);
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000', available: '20.000000' });
    expect((await journal(created.body.id)).map((r) => [r.kind, r.amount])).to.deep.equal([
      ['reserve', '2.400000'],
      ['release', '2.400000'],
    ]);
  });

  it('media removed by the safety filters (raiMediaFilteredCount > 0) fails the task with the hold released', async () => {
    const created = await v.create({ model: 'sandbox/veo-3.1', prompt: `x ${QUICK} [[sim rai]]`, seconds: 8 });
    const task = await v.finish(created.body.id);
    expect(task).to.include({ status: 'failed', task_status: 'failed' });
    expect(task.error.code).to.equal('content_filtered');
    expect(task.error.message).to.match(/^The provider's safety filters removed the video: .*might violate our policies/);
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '0.000000' });
    expect((await journal(created.body.id)).map((r) => r.kind)).to.deep.equal(['reserve', 'release']);
    expect((await v.content(created.body.id)).status).to.equal(404);
  });

  // Done with a response but no video and no filter count: Vertex says it succeeded yet delivered
  // nothing it explains. Whether Google billed it is unknown, so the gateway neither charges nor
  // releases: the task waits in review, holding its reservation, for an operator.
  it('done without a video and without a filter count goes to review, the reservation held', async () => {
    const created = await v.create({ model: 'sandbox/veo-3.1', prompt: `x ${QUICK} [[sim no_url]]`, seconds: 4, resolution: '1080p' });
    const task = await v.finish(created.body.id);
    expect(task).to.include({ status: 'in_progress', task_status: 'review' });
    expect(task.error.code).to.equal('no_asset');
    expect(await wallet()).to.include({ debits: '0.000000', reserved: '1.200000' }); // 4 s x 0.30, held
    const released = await gateway.admin('POST', `/admin/v1/video-tasks/${created.body.id}/resolve`, {
      action: 'release',
      actor: 'ops@x',
      reason: 'no video in the bucket',
    });
    expect(released.status).to.equal(200);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
  });

  it('refuses cancel (409): Vertex has no cancel, the task goes on and settles', async () => {
    const created = await v.create({ model: 'sandbox/veo-3.1', prompt: 'slow [[sim queued_ms=0 running_ms=400]]', seconds: 4 });
    const cancel = await v.cancel(created.body.id);
    expect(cancel.status).to.equal(409);
    expect(cancel.body.error.code).to.equal('cancel_not_supported');
    expect(cancel.headers.get('x-should-retry')).to.equal('false');
    expect((await v.finish(created.body.id)).billing).to.deep.include({ amount: '0.800000' });
  });

  it('streams the video from the bucket with the service account token; the bucket refuses a call without one', async () => {
    const created = await v.create({ model: 'sandbox/veo-3.1', prompt: `a ${QUICK} [[sim bytes=300000]]`, seconds: 4 });
    await v.finish(created.body.id);
    const response = await v.content(created.body.id);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('video/mp4');
    expect(response.headers.get('content-length')).to.equal('300000');
    const upstreamId = await upstreamIdOf(created.body.id);
    expect((await bytesOf(response)).equals(veo.videoBytes(upstreamId))).to.equal(true);
    const part = await v.content(created.body.id, { headers: { range: 'bytes=100-199' } });
    expect(part.status).to.equal(206);
    expect((await bytesOf(part)).equals(veo.videoBytes(upstreamId).subarray(100, 200))).to.equal(true);

    const reads = veo.exchanges.filter((e) => e.path.startsWith('/storage/'));
    expect(reads.map((e) => [e.status, e.authorized])).to.deep.equal([
      [200, true],
      [206, true],
    ]);
    expect(reads[0]!.path).to.match(/^\/storage\/v1\/b\/sandbox-bucket\/o\/veo%2F[0-9a-f]+%2Fsample_0\.mp4\?alt=media$/);
    const origin = new URL(veo.baseUrl).origin;
    const anonymous = await fetch(`${origin}${reads[0]!.path}`);
    expect(anonymous.status).to.equal(401);
    expect(((await anonymous.json()) as any).error.errors[0]).to.include({ reason: 'required', location: 'Authorization' });
    const forged = await fetch(`${origin}${reads[0]!.path}`, { headers: { authorization: 'Bearer ya29.not-issued-here' } });
    expect(forged.status).to.equal(401);
    await forged.body?.cancel();
    expect(DEFAULT_ASSET_BYTES).to.not.equal(300000); // the size came from the task, not a default
  });
});

// A non-sandbox vertex-veo provider, as an operator configures one, pointed at a simulator: the
// credential is the path of a key file whose token_uri names the simulator's token endpoint, the
// bucket is the operator's, and the Cloud Storage API root is configured.
describe('a configured vertex-veo provider: key file, token_uri, storage settings; refused without storage_uri', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let sim: VertexVeoSimulator;
  let dir: string;
  let key: string;
  let customerId: string;

  before(async () => {
    sim = await startVertexVeoSimulator({ queuedMs: 0, runningMs: 0 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veo-'));
    fs.writeFileSync(path.join(dir, 'key.json'), sim.credential, { mode: 0o600 });
    process.env.VEO_TEST_KEY_FILE = path.join(dir, 'key.json');
    const catalogue = sampleCatalogueText({
      providers: [
        testProvider('vertex-direct', 'vertex-veo', sim.baseUrl, 'VEO_TEST_KEY_FILE', {
          storage_uri: 'gs://operator-bucket/out',
          storage_base_url: sim.storageBaseUrl,
        }),
      ],
      models: [
        {
          id: 'direct/veo',
          group: 'video',
          routes: [{ provider: 'vertex-direct', upstream_model: 'veo-3.1-fast-generate-001' }],
          video: { seconds: [4, 8], cancellable: false, inline_base64: false, content_types: ['text'], audio: true, ratios: ['9:16'] },
          price: { per_second: { '720p': '0.10', '720p+audio': '0.15' } },
        },
      ],
    });
    fs.writeFileSync(path.join(dir, 'catalogue.yaml'), catalogue);
    gateway = await startTestGateway({ cataloguePath: path.join(dir, 'catalogue.yaml') });
    const customer = await gateway.customerWithKey();
    ({ key, customerId } = customer);
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
  });
  after(async () => {
    await gateway?.close();
    await sim?.close();
    delete process.env.VEO_TEST_KEY_FILE;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signs in with the key file at its token_uri, writes to the operator bucket, settles, and downloads through the configured storage API', async () => {
    const v = videoCalls(gateway, key);
    const created = await v.create({ model: 'direct/veo', prompt: 'a lighthouse at dusk', seconds: 8, ratio: '9:16', generate_audio: true });
    expect(created.status, JSON.stringify(created.body)).to.equal(202);
    expect(sim.submissions[0]!.parameters).to.deep.equal({
      durationSeconds: 8,
      resolution: '720p',
      aspectRatio: '9:16',
      generateAudio: true,
      sampleCount: 1,
      storageUri: 'gs://operator-bucket/out',
    });
    const task = await v.finish(created.body.id);
    expect(task.billing).to.deep.include({ amount: '1.200000', seconds: 8, resolution: '720p+audio' }); // 8 s x 0.15
    const download = await v.content(created.body.id);
    const upstreamId = (await gateway.db('video_tasks').where({ id: created.body.id }).first()).upstream_task_id as string;
    expect((await bytesOf(download)).equals(sim.videoBytes(upstreamId))).to.equal(true);
    expect(sim.exchanges.find((e) => e.path.startsWith('/storage/'))!.path).to.match(/^\/storage\/v1\/b\/operator-bucket\/o\/out%2F/);
    expect(sim.tokensIssued()).to.equal(1);
    expect(sim.exchanges.filter((e) => e.path === '/token')).to.have.length(1);
    // Neither the key nor a token in the logs.
    const logs = gateway.rawLogs();
    expect(logs).to.not.include(sim.serviceAccount.private_key.split('\n')[1]!);
    expect(logs).to.not.match(/ya29\./);
    expect(sim.exchanges.flatMap((e) => exchangeProblems(vertexApiOf, e))).to.deep.equal([]);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('refuses a vertex-veo provider without storage_uri at configuration time, naming it; the last catalogue stays', async () => {
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { providers: [testProvider('vertex-inline', 'vertex-veo', sim.baseUrl, 'VEO_TEST_KEY_FILE')] }),
    );
    expect(reload.status).to.equal(422);
    expect(reload.body.error.message).to.include('providers.0 (vertex-inline): a vertex-veo provider needs storage_uri (gs://bucket/prefix/)');
    expect(reload.body.error.message).to.include('inline Base64 output is not supported');
    expect(gateway.services.catalogue.current().providers.has('vertex-direct')).to.equal(true);
  });
});
