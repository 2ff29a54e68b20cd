import { expect } from 'chai';
import { VIDEO_PROTOCOL_TRAITS } from '../../../src/catalogue/video-protocols.ts';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { TASK_TIMEOUTS } from '../../../src/providers/timeouts.ts';
import { UpstreamError } from '../../../src/providers/types.ts';
import type { NormalisedVideoRequest } from '../../../src/providers/video.ts';
import { vertexVeoAdapter, veoBody } from '../../../src/providers/vertex-veo/adapter.ts';
import { accessToken, CredentialError, parseServiceAccountKey } from '../../../src/providers/vertex-veo/auth.ts';
import { customerView, modelOfOperation, objectMediaUrl, parseGcsUri, parseOperation } from '../../../src/providers/vertex-veo/operation.ts';
import { startVertexVeoSimulator, type VertexVeoSimulator } from '../../../src/sandbox/vertex-veo/server.ts';
import { validateUpstreamRequest, validateUpstreamResponse } from '../../helpers/upstream-contract.ts';
import { exchangeProblems, vertexApiOf } from '../../helpers/videos.ts';

const request: NormalisedVideoRequest = {
  model: 'google/veo-3.1',
  content: [{ type: 'text', text: 'a cat' }],
  seconds: 8,
  resolution: '720p',
  ratio: null,
  size: null,
  reference_images: [],
  generate_audio: null,
  watermark: null,
};
const NAME = 'projects/p-1/locations/us-central1/publishers/google/models/veo-3.1-generate-001/operations/0a1b2c';
const TYPE = 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse';
const PREDICT = '/publishers/google/models/veo-3.1-generate-001:predictLongRunning';
const FETCH = '/publishers/google/models/veo-3.1-generate-001:fetchPredictOperation';
const documented = (body: unknown) => validateUpstreamRequest('vertex-veo', 'POST', PREDICT, body, 'application/json', { documentedOnly: true });
const answered = (body: unknown) => validateUpstreamResponse('vertex-veo', 'POST', FETCH, 200, body, 'application/json');

describe('Veo on Vertex AI: the request the adapter sends', () => {
  it('one prompt, the requested seconds, resolution and ratio, sound only when asked, one sample, the bucket', () => {
    expect(veoBody({ ...request, content: [{ type: 'text', text: 'a cat\non a sofa' }], ratio: '9:16', generate_audio: true }, 'gs://b/veo/')).to.deep.equal({
      instances: [{ prompt: 'a cat\non a sofa' }],
      parameters: { durationSeconds: 8, resolution: '720p', aspectRatio: '9:16', generateAudio: true, sampleCount: 1, storageUri: 'gs://b/veo/' },
    });
    // No ratio asked: none sent (Vertex's default); no sound asked: the switch is sent off, as priced.
    expect(veoBody(request, 'gs://b').parameters).to.deep.equal({
      durationSeconds: 8,
      resolution: '720p',
      generateAudio: false,
      sampleCount: 1,
      storageUri: 'gs://b',
    });
  });

  it('is on the contract for every duration, resolution, ratio and sound the protocol offers', () => {
    const traits = VIDEO_PROTOCOL_TRAITS['vertex-veo'];
    for (const seconds of traits.seconds!)
      for (const resolution of traits.resolutions!)
        for (const ratio of [...traits.ratios!, null])
          for (const generate_audio of [true, false, null])
            expect(documented(veoBody({ ...request, seconds, resolution, ratio, generate_audio }, 'gs://bucket/prefix/'))).to.deep.equal([]);
  });

  it('the contract catches an unknown top-level name, a duration Veo 3.1 refuses, and a storage URI that is not gs://', () => {
    const body = veoBody(request, 'gs://b/');
    expect(documented({ ...body, labels: {} })[0]).to.match(/unknown field "labels"/);
    expect(documented({ ...body, parameters: { ...(body.parameters as object), durationSeconds: 10 } })[0]).to.match(/durationSeconds/);
    expect(documented({ ...body, parameters: { ...(body.parameters as object), storageUri: 'https://x' } })[0]).to.match(/storageUri/);
    expect(validateUpstreamRequest('vertex-veo', 'POST', FETCH, { operationName: NAME, extra: 1 }, 'application/json')[0]).to.match(/unknown field "extra"/);
  });
});

describe('Veo on Vertex AI: reading the operation', () => {
  it('a running operation ({name}, done left out) is in progress', () => {
    const op = { name: NAME };
    expect(answered(op)).to.deep.equal([]);
    expect(parseOperation(op)).to.include({ status: 'in_progress', upstreamStatus: 'running' });
  });

  it('an operation error fails the task with the canonical code name', () => {
    const op = { name: NAME, done: true, error: { code: 3, message: 'The prompt could not be submitted.' } };
    expect(answered(op)).to.deep.equal([]);
    expect(parseOperation(op)).to.deep.include({ status: 'failed', error: { code: 'INVALID_ARGUMENT', message: 'The prompt could not be submitted.' } });
  });

  it('filtered media (raiMediaFilteredCount > 0) is a failure, whatever else the answer holds', () => {
    const op = {
      name: NAME,
      done: true,
      response: { '@type': TYPE, raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['might violate our policies. Support codes: 1'] },
    };
    expect(answered(op)).to.deep.equal([]);
    const poll = parseOperation(op);
    expect(poll).to.include({ status: 'failed', upstreamStatus: 'filtered' });
    expect(poll.error).to.deep.equal({
      code: 'content_filtered',
      message: "The provider's safety filters removed the video: might violate our policies. Support codes: 1",
    });
    const alsoVideo = { ...op, response: { ...op.response, videos: [{ gcsUri: 'gs://b/x.mp4' }] } };
    expect(parseOperation(alsoVideo).status).to.equal('failed');
  });

  it('a video in the bucket is delivered and billed as requested; the customer view leaves the bucket out', () => {
    const op = { name: NAME, done: true, response: { '@type': TYPE, videos: [{ gcsUri: 'gs://b/veo/1/sample_0.mp4', mimeType: 'video/mp4' }] } };
    expect(answered(op)).to.deep.equal([]);
    const poll = parseOperation(op);
    expect(poll).to.include({ status: 'completed', deliveryConfirmed: true, billedAsRequested: true, assetUrl: undefined, deliveredSeconds: undefined });
    expect(poll.raw).to.deep.equal({ name: NAME, done: true, response: { '@type': TYPE, videos: [{ mimeType: 'video/mp4' }] } });
  });

  it('done without a video (and no filter count), or with inline bytes only, is a success that cannot be confirmed', () => {
    for (const response of [
      { '@type': TYPE },
      { '@type': TYPE, videos: [] },
      { '@type': TYPE, videos: [{ bytesBase64Encoded: 'AAAA', mimeType: 'video/mp4' }] },
    ]) {
      const poll = parseOperation({ name: NAME, done: true, response });
      expect(poll).to.include({ status: 'completed' });
      expect(poll.deliveryConfirmed).to.equal(false); // the video domain sends it to review (no_asset)
      expect(JSON.stringify(poll.raw)).to.not.include('AAAA');
    }
    expect(parseOperation({ name: NAME, done: true }).status).to.equal('unknown');
  });

  it('names the model of an operation, and the Cloud Storage URL of an object', () => {
    expect(modelOfOperation(NAME)).to.equal('veo-3.1-generate-001');
    expect(modelOfOperation('operations/123')).to.equal(undefined);
    expect(parseGcsUri('gs://my-bucket/a/b c.mp4')).to.deep.equal({ bucket: 'my-bucket', object: 'a/b c.mp4' });
    expect(parseGcsUri('https://x/y')).to.equal(undefined);
    expect(objectMediaUrl('https://storage.googleapis.com/storage/v1/', 'my-bucket', 'a/b c.mp4')).to.equal(
      'https://storage.googleapis.com/storage/v1/b/my-bucket/o/a%2Fb%20c.mp4?alt=media',
    );
    expect(customerView({ name: NAME })).to.deep.equal({ name: NAME });
  });
});

describe('Veo on Vertex AI: service-account auth and the adapter against the simulator', function () {
  this.timeout(30_000);
  let sim: VertexVeoSimulator;
  const provider = (overrides: Partial<ResolvedProvider> = {}): ResolvedProvider => ({
    id: 'veo',
    protocol: 'vertex-veo',
    sandbox: false,
    baseUrl: sim.baseUrl,
    timeouts: TASK_TIMEOUTS,
    credential: () => sim.credential,
    storage: { uri: 'gs://bucket-a/out/', apiBaseUrl: sim.storageBaseUrl },
    ...overrides,
  });

  before(async () => (sim = await startVertexVeoSimulator({ queuedMs: 0, runningMs: 0 })));
  after(async () => {
    expect(sim.exchanges.flatMap((e) => exchangeProblems(vertexApiOf, e))).to.deep.equal([]);
    await sim.close();
  });

  it('reads a key as JSON or from a file, and says what is wrong without repeating any of it', () => {
    const key = parseServiceAccountKey(sim.credential);
    expect(key).to.include({ client_email: 'veo-sandbox@sandbox-project.iam.gserviceaccount.com', token_uri: sim.tokenUrl });
    const failures = [
      '{"client_email": "x@y"}',
      'not-a-file-/nowhere/key.json',
      '{"client_email": "a", "private_key": "SECRET", "token_uri": "ftp://x"}',
      '{broken SECRET',
    ];
    for (const credential of failures) {
      const error = (() => {
        try {
          parseServiceAccountKey(credential);
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      expect(error).to.be.instanceOf(CredentialError);
      expect(error!.message).to.not.include('SECRET');
      expect(error!.message).to.not.include('nowhere');
    }
  });

  it('gets a token at the key’s token_uri once, and reuses it until it nears expiry', async () => {
    const before = sim.tokensIssued();
    const first = await accessToken(provider());
    const second = await accessToken(provider({ id: 'another-provider-same-key' }));
    expect(first)
      .to.be.a('string')
      .and.match(/^ya29\.sandbox\./);
    expect(second).to.equal(first);
    expect(sim.tokensIssued()).to.equal(before + 1);
  });

  it('a key the token endpoint does not accept (another key pair) is a 401 without text; an unreachable endpoint is retryable', async () => {
    const refused = await accessToken(provider({ credential: () => sim.foreignCredential() }));
    expect(refused).to.be.instanceOf(UpstreamError);
    expect(refused).to.include({ kind: 'status', status: 401, retryable: false, body: undefined });
    expect(sim.exchanges.filter((e) => e.path === '/token').at(-1)!.body).to.deep.equal({
      error: 'invalid_grant',
      error_description: 'Invalid JWT Signature.',
    });
    const key = { ...JSON.parse(sim.credential), token_uri: 'http://127.0.0.1:1/token' };
    const unreachable = await accessToken(provider({ credential: () => JSON.stringify(key) }));
    expect(unreachable).to.include({ kind: 'connect', retryable: true });
    expect(await accessToken(provider({ credential: () => undefined }))).to.include({ kind: 'status', status: 401 });
  });

  it('maps Vertex’s 429 on submit to the account refusal the queue reads, in the OpenAI shape', async () => {
    const refused = await vertexVeoAdapter.submit(provider(), 'veo-3.1-generate-001', {
      ...request,
      content: [{ type: 'text', text: 'x [[sim reject=429]]' }],
    });
    expect(refused).to.be.instanceOf(UpstreamError);
    expect(refused).to.include({ kind: 'status', status: 429, retryable: true });
    expect(JSON.parse((refused as UpstreamError).body!).error).to.include({ type: 'rate_limit_error', code: 'provider_concurrency' });
    const invalid = await vertexVeoAdapter.submit(provider(), 'veo-9-unknown', request);
    expect(invalid).to.include({ kind: 'status', status: 404 });
  });

  it('reads the video only from the provider’s own bucket: an object elsewhere is not fetched with its token', async () => {
    const submitted = await vertexVeoAdapter.submit(provider(), 'veo-3.1-generate-001', request);
    const upstreamId = (submitted as { upstreamId: string }).upstreamId;
    expect(await vertexVeoAdapter.poll(provider(), upstreamId)).to.include({ status: 'completed', deliveryConfirmed: true });
    const here = await vertexVeoAdapter.locate(provider(), upstreamId, 'video');
    expect(here).to.include({ withCredential: false });
    expect((here as { url: string }).url).to.equal(
      `${sim.storageBaseUrl}/b/bucket-a/o/${encodeURIComponent(`out/${upstreamId.split('/').at(-1)}/sample_0.mp4`)}?alt=media`,
    );
    expect((here as { bearer: string }).bearer).to.match(/^ya29\./);
    const elsewhere = await vertexVeoAdapter.locate(provider({ storage: { uri: 'gs://bucket-b/', apiBaseUrl: undefined } }), upstreamId, 'video');
    expect(elsewhere).to.be.instanceOf(UpstreamError);
    expect(elsewhere).to.include({ kind: 'protocol' });
    expect(await vertexVeoAdapter.locate(provider(), `${upstreamId}0`, 'video')).to.equal('gone'); // Vertex no longer has it
    expect(await vertexVeoAdapter.cancel(provider(), upstreamId)).to.equal('refused');
  });
});
