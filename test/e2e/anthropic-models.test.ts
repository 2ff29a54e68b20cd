import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

// Issue 35, 2: GET /v1/models in Anthropic's list shape for Anthropic's clients (anthropic-version
// or x-api-key), OpenAI's for everyone else; the official SDKs of both, unchanged.
describe('official @anthropic-ai/sdk: models.list and models.retrieve (Anthropic shape)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  const MESSAGES_MODELS = ['sandbox/claude-opus', 'sandbox/claude-sonnet', 'sandbox/claude-haiku'];

  before(async () => {
    gateway = await startTestGateway();
    ({ key } = await gateway.customerWithKey());
  });
  after(async () => gateway.close());

  const anthropic = (options: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, ...options });

  it('lists the models served on /v1/messages as ModelInfo, every page followed by the SDK', async () => {
    const all: Anthropic.ModelInfo[] = [];
    for await (const model of anthropic().models.list()) all.push(model);
    expect(all.map((m) => m.id)).to.deep.equal(MESSAGES_MODELS);
    expect(all[0]).to.deep.equal({
      type: 'model',
      id: 'sandbox/claude-opus',
      display_name: 'Sandbox Claude Opus (simulated)',
      created_at: '2025-01-01T00:00:00Z',
      max_input_tokens: 1000000,
      max_tokens: 128000,
    });

    // Two to a page: the SDK follows has_more and last_id (after_id) to the end.
    const paged: string[] = [];
    const requests: string[] = [];
    const spying = anthropic({
      fetch: (url: string | URL | Request, init?: RequestInit) => {
        requests.push(String(url));
        return fetch(url, init);
      },
    });
    for await (const model of spying.models.list({ limit: 2 })) paged.push(model.id);
    expect(paged).to.deep.equal(MESSAGES_MODELS);
    expect(requests.map((u) => new URL(u).search)).to.deep.equal(['?limit=2', '?limit=2&after_id=sandbox%2Fclaude-sonnet']);
    const first = await anthropic().models.list({ limit: 2 });
    expect(first).to.include({ has_more: true, first_id: 'sandbox/claude-opus', last_id: 'sandbox/claude-sonnet' });
    const before = await fetch(`${gateway.url}/v1/models?limit=5&before_id=sandbox%2Fclaude-haiku`, { headers: { 'x-api-key': key } });
    expect(await before.json()).to.deep.include({ has_more: false, first_id: 'sandbox/claude-opus', last_id: 'sandbox/claude-sonnet' });
  });

  it('retrieves a model, or a name it answers to, under the name asked', async () => {
    expect(await anthropic().models.retrieve('sandbox/claude-haiku')).to.include({ type: 'model', id: 'sandbox/claude-haiku', max_tokens: 64000 });
    expect(await anthropic().models.retrieve('claude-opus-4-8')).to.include({
      type: 'model',
      id: 'claude-opus-4-8',
      display_name: 'Sandbox Claude Opus (simulated)',
    });
    let error: unknown;
    try {
      await anthropic().models.retrieve('llama-4');
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(Anthropic.NotFoundError);
  });

  it("picks the shape by how the client calls: x-api-key or anthropic-version get Anthropic's, a Bearer key alone OpenAI's (the OpenAI SDK unchanged)", async () => {
    const shapeOf = async (headers: Record<string, string>) => {
      const body = (await (await fetch(`${gateway.url}/v1/models`, { headers })).json()) as Record<string, unknown>;
      return 'object' in body ? 'openai' : 'has_more' in body ? 'anthropic' : 'neither';
    };
    expect(await shapeOf({ 'x-api-key': key })).to.equal('anthropic');
    expect(await shapeOf({ authorization: `Bearer ${key}`, 'anthropic-version': '2023-06-01' })).to.equal('anthropic');
    expect(await shapeOf({ 'anthropic-version': '2026-10-21' })).to.equal('anthropic'); // anonymous: the public models
    expect(await shapeOf({ authorization: `Bearer ${key}` })).to.equal('openai');
    expect(await shapeOf({})).to.equal('openai');

    const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const page = await openai.models.list();
    expect(page.data.map((m) => m.id)).to.include.members([...MESSAGES_MODELS, 'sandbox/chat-model', 'sandbox/seedance']);
    expect(page.data[0]).to.include({ object: 'model', owned_by: 'gateway' });
  });

  it('refuses a key sent as x-api-key that is not valid (401), as on /v1/messages', async () => {
    const answer = await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': 'sk-gw-not-a-real-key' } });
    expect(answer.status).to.equal(401);
  });
});
