import { expect } from 'chai';
import type { VideoSpec } from '../../../src/catalogue/types.ts';
import type { ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import type { MiniMaxSimulator } from '../../../src/sandbox/minimax/server.ts';
import type { OpenAIVideosSimulator } from '../../../src/sandbox/openai-videos/server.ts';
import { changeCatalogue, sampleCatalogueWith, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract, videoCalls } from '../../helpers/videos.ts';

// Every create option is mapped to the provider's own parameter or refused with 400 naming the
// field and the model; nothing is dropped on the way. Plus the refusals that come from elsewhere:
// no enabled provider (503), the provider's rate limit (the task waits at the gateway), its error text.
const QUICK = '[[sim queued_ms=0 running_ms=0]]';

const FIVE_SECONDS_TEXT: VideoSpec = { seconds: [5], cancellable: false, inline_base64: false, content_types: ['text'] };

describe('video create options: mapped for the provider or refused, never dropped', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let cataloguePath: string;
  let v: ReturnType<typeof videoCalls>;
  let ark: ArkSimulator;
  let sora: OpenAIVideosSimulator;
  let minimax: MiniMaxSimulator;

  beforeEach(async () => {
    cataloguePath = sampleCatalogueWith({
      withoutFreeQuota: ['sandbox/seedance'], // exact charges
      providers: [testProvider('ark-unconfigured', 'ark-video', 'https://ark.example.com/api/v3', 'ARK_KEY_NOT_SET_IN_TESTS')],
      models: [
        {
          id: 'sandbox/doubao-seedance-lite',
          group: 'video',
          routes: [{ provider: 'sandbox-ark' }],
          video: FIVE_SECONDS_TEXT,
          price: { per_second: { '480p': '0.02' } },
        },
        {
          id: 'bytedance/unserved',
          group: 'video',
          routes: [{ provider: 'ark-unconfigured' }],
          video: FIVE_SECONDS_TEXT,
          price: { per_second: { '720p': '0.10' } },
        },
      ],
    });
    gateway = await startTestGateway({ cataloguePath });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '20.00', reference: 'fund' });
    v = videoCalls(gateway, key);
    ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
    sora = gateway.simulators.get('sandbox-openai-videos') as OpenAIVideosSimulator;
    minimax = gateway.simulators.get('sandbox-minimax') as MiniMaxSimulator;
  });
  afterEach(async () => {
    expectVideoUpstreamsOnContract(gateway);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  const expectRefused = async (body: Record<string, unknown>, param: string, mentions: string) => {
    const answer = await v.create(body);
    expect(answer.status, JSON.stringify(body)).to.equal(400);
    expect(answer.body.error.param, JSON.stringify(body)).to.equal(param);
    expect(answer.body.error.message, JSON.stringify(body)).to.include(mentions);
  };

  it('Ark: size becomes resolution and ratio, priced at its tier; ratio, sound and watermark are passed on', async () => {
    const landscape = await v.create({ model: 'sandbox/seedance', prompt: 'a', size: '1280x720', seconds: 5 });
    expect(landscape.status).to.equal(202);
    expect(ark.submissions.at(-1)).to.deep.include({ resolution: '720p', ratio: '16:9', duration: 5 });
    expect((await wallet()).reserved).to.equal('0.500000'); // 5 s x 0.10 at 720p
    await v.create({ model: 'sandbox/seedance', prompt: 'a', size: '1080x1920', seconds: 5, generate_audio: true, watermark: false });
    expect(ark.submissions.at(-1)).to.deep.include({ resolution: '1080p', ratio: '9:16', generate_audio: true, watermark: false });
    expect((await wallet()).reserved).to.equal('1.750000'); // + 5 s x 0.25 at 1080p
    await v.create({ model: 'sandbox/seedance', prompt: 'a', resolution: '480p', ratio: '21:9' });
    expect(ark.submissions.at(-1)).to.deep.include({ resolution: '480p', ratio: '21:9' });

    await expectRefused({ model: 'sandbox/seedance', prompt: 'a', size: '640x360' }, 'size', 'sandbox/seedance takes the sizes 864x480, 480x864');
    await expectRefused({ model: 'sandbox/seedance', prompt: 'a', size: '1280x720', resolution: '1080p' }, 'size', '1280x720 is 720p');
    await expectRefused({ model: 'sandbox/seedance', prompt: 'a', ratio: '5:4' }, 'ratio', 'sandbox/seedance takes the ratios 16:9');
    await expectRefused(
      { model: 'sandbox/seedance', prompt: 'a', content: [{ type: 'video_url', video_url: { url: 'https://x/v.mp4' } }] },
      'content[0].type',
      'sandbox/seedance',
    );
    await expectRefused(
      { model: 'sandbox/seedance', prompt: 'a', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' }, role: 'reference_video' }] },
      'content[0].role',
      'sandbox/seedance takes image_url inputs in the roles',
    );
    await expectRefused({ model: 'sandbox/seedance', prompt: 'a', seed: 42 }, 'seed', 'Unknown body field `seed`');
    expect(ark.submissions).to.have.length(3);
  });

  it('a prompt and text items become one text input, joined; the other inputs follow in order', async () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/first.png' }, role: 'first_frame' };
    const created = await v.create({
      model: 'sandbox/seedance',
      prompt: 'a fox',
      content: [{ type: 'text', text: 'in the snow' }, image, { type: 'text', text: 'at dusk' }],
    });
    expect(created.status).to.equal(202); // Ark refuses two text items
    expect(ark.submissions.at(-1)!.content).to.deep.equal([{ type: 'text', text: 'a fox\nin the snow\nat dusk' }, image]);

    await v.create({ model: 'sandbox/h3', prompt: 'a dancer', content: [{ type: 'text', text: 'on a roof' }], seconds: 4, ratio: '16:9' });
    expect(minimax.submissions.at(-1)!.content).to.deep.equal([{ type: 'text', text: 'a dancer\non a roof' }]); // H3 takes exactly one

    await v.create({
      model: 'sandbox/compatible-video',
      content: [
        { type: 'text', text: 'a wave' },
        { type: 'text', text: 'at night' },
      ],
      seconds: 4,
    });
    expect(sora.submissions.at(-1)!.prompt).to.equal('a wave\nat night');
  });

  it('OpenAI videos: size as is, priced at its tier; an image becomes input_reference; what Sora cannot take is refused', async () => {
    await v.create({ model: 'sandbox/compatible-video', prompt: 'a', size: '1792x1024', seconds: 4 });
    expect(sora.submissions.at(-1)).to.deep.equal({ model: 'sora-2', prompt: 'a', seconds: '4', size: '1792x1024' });
    expect((await wallet()).reserved).to.equal('1.200000'); // 4 s x 0.30 at 1024p
    await v.create({
      model: 'sandbox/compatible-video',
      prompt: 'b',
      seconds: 4,
      content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }],
    });
    expect(sora.submissions.at(-1)).to.deep.include({ size: '1280x720', input_reference: { image_url: 'https://example.com/a.png' } });
    const form = await v.createForm([
      ['model', 'sandbox/compatible-video'],
      ['prompt', 'c'],
      ['seconds', '8'],
      ['size', '720x1280'],
      ['input_reference[image_url]', 'https://example.com/b.png'],
    ]);
    expect(form.status).to.equal(202);
    expect(sora.submissions.at(-1)).to.deep.equal({
      model: 'sora-2',
      prompt: 'c',
      seconds: '8',
      size: '720x1280',
      input_reference: { image_url: 'https://example.com/b.png' },
    });

    await expectRefused(
      { model: 'sandbox/compatible-video', prompt: 'a', generate_audio: true },
      'generate_audio',
      'sandbox/compatible-video does not take generate_audio',
    );
    await expectRefused({ model: 'sandbox/compatible-video', prompt: 'a', generate_audio: false }, 'generate_audio', 'sandbox/compatible-video');
    await expectRefused({ model: 'sandbox/compatible-video', prompt: 'a', watermark: false }, 'watermark', 'sandbox/compatible-video does not take watermark');
    await expectRefused({ model: 'sandbox/compatible-video', prompt: 'a', size: '1920x1080' }, 'size', 'sandbox/compatible-video takes the sizes');
    await expectRefused({ model: 'sandbox/compatible-video', prompt: 'a', resolution: '1024p', ratio: '16:9' }, 'ratio', 'takes the ratios 7:4, 4:7 at 1024p');
    const two = [1, 2].map((n) => ({ type: 'image_url', image_url: { url: `https://example.com/${n}.png` } }));
    await expectRefused({ model: 'sandbox/compatible-video', prompt: 'a', content: two }, 'content', 'sandbox/compatible-video takes at most 1 image input');
    await expectRefused(
      { model: 'sandbox/compatible-video', prompt: 'a', content: [{ ...two[0], role: 'last_frame' }] },
      'content[0].role',
      'sandbox/compatible-video takes image_url inputs in the roles first_frame',
    );
    await expectRefused(
      { model: 'sandbox/compatible-video', prompt: 'a', reference_images: [{ url: 'https://example.com/r.png' }] },
      'reference_images',
      'sandbox/compatible-video',
    );
    expect(sora.submissions).to.have.length(3);
  });

  it('MiniMax H3: watermark is aigc_watermark; generate_audio and size are refused', async () => {
    await v.create({ model: 'sandbox/h3', prompt: 'a', seconds: 4, ratio: '9:16', watermark: true });
    expect(minimax.submissions.at(-1)).to.deep.include({ resolution: '768P', ratio: '9:16', duration: 4, aigc_watermark: true });
    await expectRefused({ model: 'sandbox/h3', prompt: 'a', seconds: 4, generate_audio: true }, 'generate_audio', 'sandbox/h3 does not take generate_audio');
    await expectRefused({ model: 'sandbox/h3', prompt: 'a', seconds: 4, size: '1280x720' }, 'size', 'sandbox/h3 takes no size');
    expect(minimax.submissions).to.have.length(1);
  });

  it('a route naming no upstream model sends the public name after the slash', async () => {
    expect((await v.create({ model: 'sandbox/doubao-seedance-lite', prompt: 'a' })).status).to.equal(202);
    expect(ark.submissions.at(-1)).to.deep.include({ model: 'doubao-seedance-lite', resolution: '480p', duration: 5 });
  });

  it('no enabled provider: 503 no_provider, no task, nothing reserved', async () => {
    const answer = await v.create({ model: 'bytedance/unserved', prompt: 'a' });
    expect(answer.status).to.equal(503);
    expect(answer.body.error).to.include({ code: 'no_provider', type: 'api_error' });
    expect(answer.body.error.message).to.include('bytedance/unserved');
    expect(await gateway.db('video_tasks')).to.have.length(0);
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
  });

  it("the provider's rate limit: the task is accepted and waits in the gateway's queue with its hold; cancelled there, nothing is charged", async () => {
    const answer = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim reject=429]]' });
    expect(answer.status).to.equal(202);
    const task = (await v.get(answer.body.task_id)).body;
    expect(task).to.include({ status: 'queued', task_status: 'queued', queue_position: 1, error: null });
    expect(await wallet()).to.include({ reserved: '0.250000', debits: '0.000000' });
    expect(ark.submissions).to.have.length(0);
    const cancelled = await v.cancel(answer.body.task_id);
    expect(cancelled.body).to.include({ status: 'failed', task_status: 'cancelled', queue_position: null });
    expect(await wallet()).to.include({ reserved: '0.000000', debits: '0.000000' });
  });

  it("the provider's error text reaches the customer without its ids, hosts or our upstream model name", async () => {
    const rejected = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim reject]]' });
    expect(rejected.status).to.equal(400);
    expect(rejected.body.error.message)
      .to.include('sandbox/seedance')
      .and.not.include('doubao')
      .and.not.match(/Request id|0217/);
    const failed = await v.finish((await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK} [[sim fail]]` })).body.task_id);
    expect(failed.error.code).to.equal('OutputVideoSensitiveContentDetected');
    expect(failed.error.message)
      .to.include('sandbox/seedance')
      .and.not.include('doubao')
      .and.not.match(/Request id|0217/);
    const h3 = await v.finish((await v.create({ model: 'sandbox/h3', prompt: `a ${QUICK} [[sim fail]]`, seconds: 4, ratio: '16:9' })).body.task_id);
    expect(h3.error.code).to.equal('1027');
    expect(h3.error.message)
      .to.include('sandbox/h3')
      .and.not.include('MiniMax-H3')
      .and.not.match(/trace_id: [0-9a-f]{8}/);
  });

  it('cancel follows the plan the task was sold with, not the catalogue of today', async () => {
    const queued = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim queued_ms=60000]]' });
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { model: { 'sandbox/seedance': (m) => void (m.video!.cancellable = false) } }),
    );
    expect(reload.body.status).to.equal('reloaded');
    expect(gateway.services.catalogue.current().model('sandbox/seedance')!.video!.cancellable).to.equal(false);
    const cancelled = await v.cancel(queued.body.task_id);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body.task_status).to.equal('cancelled');
    expect((await wallet()).reserved).to.equal('0.000000');
    const later = await v.create({ model: 'sandbox/seedance', prompt: 'a [[sim queued_ms=60000]]' });
    expect((await v.cancel(later.body.task_id)).body.error.code).to.equal('cancel_not_supported');
  });
});
