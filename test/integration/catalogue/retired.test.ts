import { expect } from 'chai';
import { fundedCustomer } from '../../helpers/factories.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// A provider shuts a model down (OpenAI's Sora on 2026-09-24). The catalogue marks it retired:
// it leaves /v1/models and the pricing, a new request is told when it was retired and what to use
// instead, in the endpoint's own "not found" (as the providers answer for their retired models),
// and a task accepted before the retirement still finishes and settles.
describe('retired models', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let v: ReturnType<typeof videoCalls>;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith() }); // a copy: tests rewrite it (reset puts it back)
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '20.00' }));
    v = videoCalls(gateway, key);
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const get = async (pathname: string) => {
    const response = await fetch(`${gateway.url}${pathname}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('leaves /v1/models and the pricing, and answers a lookup with its retirement', async () => {
    const models = await get('/v1/models');
    const ids = models.body.data.map((m: { id: string }) => m.id);
    expect(ids).to.include('sandbox/compatible-video');
    expect(ids).to.not.include('sandbox/sora-2');
    expect(ids).to.not.include('openai/sora-2');
    const pricing = await get('/v1/models/pricing');
    expect(pricing.body.data.map((m: { id: string }) => m.id)).to.not.include('sandbox/sora-2');
    const retrieved = await get('/v1/models/sandbox/sora-2');
    expect(retrieved).to.deep.equal({
      status: 404,
      body: {
        error: {
          message: 'The model `sandbox/sora-2` was retired on 2026-09-24 and no longer accepts requests; use `sandbox/compatible-video` instead.',
          type: 'invalid_request_error',
          code: 'model_not_found',
          param: null,
        },
      },
    });
  });

  it('refuses a new video task with the retirement, holding nothing', async () => {
    const created = await v.create({ model: 'sandbox/sora-2', prompt: 'a wave', seconds: 4 });
    expect(created.status).to.equal(404);
    expect(created.body.error).to.deep.equal({
      message: 'The model `sandbox/sora-2` was retired on 2026-09-24 and no longer accepts requests; use `sandbox/compatible-video` instead.',
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: 'model',
    });
    expect(await gateway.wallet(customerId)).to.include({ reserved: '0.000000', debits: '0.000000' });
    const [row] = await gateway.db('video_tasks').count<{ n: string | number }[]>('* as n');
    expect(Number(row!.n)).to.equal(0);
  });

  it('finishes and settles a task accepted before the model was retired; new ones are refused', async () => {
    const accepted = await v.create({ model: 'sandbox/h3', prompt: 'a wave [[sim queued_ms=0 running_ms=400]]', seconds: 5, resolution: '768P' });
    expect(accepted.status).to.equal(202);
    const reload = await gateway.rewriteCatalogue((text) => changeCatalogue(text, { model: { 'sandbox/h3': { retired: { date: '2026-11-26' } } } }));
    expect(reload.status).to.equal(200);
    const refused = await v.create({ model: 'sandbox/h3', prompt: 'another', seconds: 5, resolution: '768P' });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.message).to.equal('The model `sandbox/h3` was retired on 2026-11-26 and no longer accepts requests.');
    const finished = await v.finish(accepted.body.task_id);
    expect(finished.task_status).to.equal('completed');
    expect(finished.billing).to.deep.include({ amount: '0.400000', seconds: 5, resolution: '768P' }); // 5 s x 0.08
    expect(await gateway.wallet(customerId)).to.include({ debits: '0.400000', reserved: '0.000000' });
  });

  it('answers /v1/messages for a retired model in Anthropic’s not_found_error, and chat in OpenAI’s shape', async () => {
    await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, {
        model: {
          'sandbox/claude-haiku': { retired: { date: '2026-11-01', replacement: 'sandbox/claude-sonnet' } },
          'sandbox/chat-model': { retired: { date: '2026-11-02' } },
        },
      }),
    );
    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).to.equal(404);
    const body = (await messages.json()) as any;
    expect(body.error).to.deep.equal({
      type: 'not_found_error',
      message: 'The model `sandbox/claude-haiku` was retired on 2026-11-01 and no longer accepts requests; use `sandbox/claude-sonnet` instead.',
    });
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).to.equal(404);
    expect(((await chat.json()) as any).error).to.deep.include({ code: 'model_not_found', param: 'model' });
    await gateway.settled();
    expect(await gateway.wallet(customerId)).to.include({ debits: '0.000000', reserved: '0.000000' });
  });
});
