import { expect } from 'chai';
import type { ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import type { Exchange } from '../../../src/sandbox/json-server.ts';
import type { MiniMaxSimulator } from '../../../src/sandbox/minimax/server.ts';
import type { OpenAIVideosSimulator } from '../../../src/sandbox/openai-videos/server.ts';
import { DEFAULT_ASSET_BYTES } from '../../../src/sandbox/task-book.ts';
import { eventually } from '../../helpers/eventually.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract, videoCalls } from '../../helpers/videos.ts';

// GET /v1/videos/{task_id}/content: the provider's bytes streamed to the task's creator, URLs
// resolved afresh each time, Range passed on, back-pressure kept, the upstream aborted when the
// client leaves; 404 for anything not downloadable.
const QUICK = '[[sim queued_ms=0 running_ms=0]]';
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const assetExchanges = (sim: { exchanges: Exchange[] }) => sim.exchanges.filter((e) => e.path.startsWith('/assets/'));

describe('video content: GET /v1/videos/{task_id}/content streams the provider’s file', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let v: ReturnType<typeof videoCalls>;
  let ark: ArkSimulator;
  let minimax: MiniMaxSimulator;
  let sora: OpenAIVideosSimulator;

  before(async () => {
    gateway = await startTestGateway();
    ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
    minimax = gateway.simulators.get('sandbox-minimax') as MiniMaxSimulator;
    sora = gateway.simulators.get('sandbox-openai-videos') as OpenAIVideosSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    const customer = await fundedCustomer(gateway, { balance: '20.00' });
    key = customer.key;
    v = videoCalls(gateway, key);
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const completed = async (body: Record<string, unknown>) => {
    const created = await v.create(body);
    expect(created.status, JSON.stringify(created.body)).to.equal(202);
    const task = await v.finish(created.body.id);
    expect(task.task_status).to.equal('completed');
    const upstreamId = (await gateway.db('video_tasks').where({ id: task.id }).first()).upstream_task_id as string;
    return { id: task.id as string, upstreamId, task };
  };

  it('Ark: the MP4 from the supplier URL of a fresh task query, with its type and length, no credential sent there', async () => {
    const { id, upstreamId } = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    const queries = () => ark.exchanges.filter((e) => e.method === 'GET' && e.path.startsWith('/contents/')).length;
    const before = queries();
    const response = await v.content(id);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('video/mp4');
    expect(response.headers.get('content-length')).to.equal(String(DEFAULT_ASSET_BYTES));
    expect(response.headers.get('x-request-id')).to.match(/^req_/);
    const bytes = await bytesOf(response);
    expect(bytes.equals(ark.videoBytes(upstreamId))).to.equal(true);
    expect(bytes.subarray(4, 8).toString()).to.equal('ftyp');
    expect(queries()).to.equal(before + 1); // the URL is re-resolved on each call
    await bytesOf(await v.content(id, { query: '?variant=video' }));
    expect(queries()).to.equal(before + 2);
    expect(assetExchanges(ark).map((e) => e.authorized)).to.deep.equal([false, false]);
  });

  it('passes Range on: 206 with content-range, and 416 outside the file', async () => {
    const { id, upstreamId } = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    const part = await v.content(id, { headers: { range: 'bytes=100-199' } });
    expect(part.status).to.equal(206);
    expect(part.headers.get('content-range')).to.equal(`bytes 100-199/${DEFAULT_ASSET_BYTES}`);
    expect(part.headers.get('content-length')).to.equal('100');
    expect((await bytesOf(part)).equals(ark.videoBytes(upstreamId).subarray(100, 200))).to.equal(true);
    expect(assetExchanges(ark).at(-1)!.range).to.equal('bytes=100-199');
    const tail = await v.content(id, { headers: { range: 'bytes=-10' } });
    expect((await bytesOf(tail)).equals(ark.videoBytes(upstreamId).subarray(-10))).to.equal(true);
    const outside = await v.content(id, { headers: { range: 'bytes=99999999-' } });
    expect(outside.status).to.equal(416);
    expect(outside.headers.get('content-range')).to.equal(`bytes */${DEFAULT_ASSET_BYTES}`);
    expect(((await outside.json()) as any).error.code).to.equal('range_not_satisfiable');
    const ignored = await v.content(id, { headers: { range: 'lines=1-2' } }); // not a byte range: the whole file
    expect(ignored.status).to.equal(200);
    await ignored.arrayBuffer();
  });

  it('MiniMax H3: each download queries the task for a freshly signed URL, so an old URL expiring does not matter', async () => {
    // Each signed URL lasts 2 s: long enough for a download to fetch it on a loaded machine.
    const { id, upstreamId, task } = await completed({ model: 'sandbox/h3', prompt: `a ${QUICK} [[sim url_ttl_ms=2000]]`, seconds: 4, ratio: '16:9' });
    await eventually(async () => {
      const stale = await fetch(task.result.content.url); // the URL seen when the task completed
      await stale.arrayBuffer();
      expect(stale.status).to.equal(403);
    });
    const response = await v.content(id);
    expect(response.status).to.equal(200);
    expect((await bytesOf(response)).equals(minimax.videoBytes(upstreamId))).to.equal(true);
  });

  it('OpenAI videos: the provider’s /content with our credential, for each variant it makes', async () => {
    const { id, upstreamId } = await completed({ model: 'sandbox/compatible-video', prompt: `a ${QUICK}`, seconds: 4 });
    const video = await v.content(id);
    expect(video.headers.get('content-type')).to.equal('video/mp4');
    expect((await bytesOf(video)).equals(sora.contentBytes(upstreamId))).to.equal(true);
    const thumbnail = await v.content(id, { query: '?variant=thumbnail' });
    expect(thumbnail.headers.get('content-type')).to.equal('image/webp');
    expect((await bytesOf(thumbnail)).equals(sora.contentBytes(upstreamId, 'thumbnail'))).to.equal(true);
    const spritesheet = await v.content(id, { query: '?variant=spritesheet', headers: { range: 'bytes=0-9' } });
    expect(spritesheet.status).to.equal(206);
    expect((await bytesOf(spritesheet)).equals(sora.contentBytes(upstreamId, 'spritesheet').subarray(0, 10))).to.equal(true);
    const calls = sora.exchanges.filter((e) => e.path.includes('/content'));
    expect(calls.map((e) => [e.path.replace(upstreamId, 'ID'), e.authorized])).to.deep.equal([
      ['/videos/ID/content?variant=video', true],
      ['/videos/ID/content?variant=thumbnail', true],
      ['/videos/ID/content?variant=spritesheet', true],
    ]);
  });

  it('404 in the error shape for what cannot be downloaded; another customer’s task is 404 too', async () => {
    const notFound = async (id: string, mentions: string, code = 'content_not_available', apiKey = key) => {
      const response = await v.content(id, { apiKey });
      expect(response.status, id).to.equal(404);
      const body = (await response.json()) as any;
      expect(body.error.code, id).to.equal(code);
      expect(body.error.message, id).to.include(mentions);
    };
    const queued = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim queued_ms=60000]]' });
    await notFound(queued.body.id, 'not ready yet');
    const review = await v.finish((await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim no_duration]]` })).body.id);
    await notFound(review.id, 'held for review');
    const failed = await v.finish((await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim fail]]` })).body.id);
    await notFound(failed.id, 'failed');
    const expired = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim url_ttl_ms=1]]` });
    await new Promise((r) => setTimeout(r, 20));
    await notFound(expired.id, 'no longer serves'); // Ark's video_url lasts 24 h
    const deleted = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    ark.tasks.delete(deleted.upstreamId); // Ark forgets tasks after 7 days
    await notFound(deleted.id, 'no longer serves');
    const mine = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    await notFound(mine.id, 'No video task', 'task_not_found', (await gateway.customerWithKey()).key);
    await notFound('vt_nobody', 'No video task', 'task_not_found');
    const thumbnail = await v.content(mine.id, { query: '?variant=thumbnail' });
    expect(thumbnail.status).to.equal(400);
    expect(((await thumbnail.json()) as any).error).to.include({ param: 'variant', message: 'sandbox/seedance offers the variants video, not thumbnail.' });
    expect((await v.content(mine.id, { query: '?variant=poster' })).status).to.equal(400);
  });

  it('keeps back-pressure (the provider sends only what the client takes) and aborts the upstream when the client leaves', async () => {
    const size = 256 * 1024 * 1024;
    const { id } = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim bytes=${size}]]` });
    const client = new AbortController();
    const response = await v.content(id, { signal: client.signal });
    expect(response.headers.get('content-length')).to.equal(String(size));
    const reader = response.body!.getReader();
    let received = 0;
    while (received < 1024 * 1024) received += (await reader.read()).value!.length;
    // The client stops reading: once the buffers between it and the provider are full, the
    // provider must stop sending. Wait (5 s at most) until nothing was sent for 300 ms.
    const upstream = assetExchanges(ark).at(-1)!;
    let sentWhilePaused = upstream.sent;
    let pausedSince = Date.now();
    const stallDeadline = Date.now() + 5000;
    while (Date.now() - pausedSince < 300 && Date.now() < stallDeadline) {
      await new Promise((r) => setTimeout(r, 20));
      if (upstream.sent !== sentWhilePaused) [sentWhilePaused, pausedSince] = [upstream.sent, Date.now()];
    }
    expect(upstream.finished).to.equal(false);
    expect(upstream.sent).to.be.below(64 * 1024 * 1024); // socket buffers only, not the file
    expect(Date.now() - pausedSince, 'the provider kept sending to a client that reads nothing').to.be.at.least(300);
    expect(upstream.sent).to.equal(sentWhilePaused);

    client.abort();
    const deadline = Date.now() + 5000;
    while (!upstream.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(upstream).to.include({ closed: true, finished: false });
  });

  it('cuts the response when the provider breaks off mid-file: never a short file passed off as whole', async () => {
    const { id } = await completed({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim cut_bytes=131072]]` });
    const response = await v.content(id);
    expect(response.status).to.equal(200);
    let failure: unknown;
    await response.arrayBuffer().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });
});
