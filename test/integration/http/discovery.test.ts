import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const get = async (gateway: TestGateway, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(gateway.url + path, { headers });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
};

describe('model discovery over HTTP', () => {
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway();
  });
  afterEach(async () => gateway.close());

  it('lists every public model anonymously, owned by the service, with a request-id', async () => {
    const { status, body, headers } = await get(gateway, '/v1/models');
    expect(status).to.equal(200);
    expect(headers.get('request-id')).to.match(/^req_[0-9A-Za-z]{24}$/);
    expect(body.object).to.equal('list');
    const ids = body.data.map((m: any) => m.id);
    expect(ids).to.include.members(['sandbox/claude-sonnet', 'sandbox/seedance']);
    for (const model of body.data) {
      expect(model).to.include({ object: 'model', owned_by: 'gateway' });
      expect(model.created).to.be.a('number');
    }
  });

  it('with a key lists only what the key may reach; a bad or revoked key is a 401', async () => {
    const limited = await gateway.customerWithKey({ allowedModels: ['sandbox/claude-haiku'] });
    const mine = await get(gateway, '/v1/models', { authorization: `Bearer ${limited.key}` });
    expect(mine.status).to.equal(200);
    expect(mine.body.data.map((m: any) => m.id)).to.deep.equal(['sandbox/claude-haiku']);

    const hidden = await get(gateway, `/v1/models/${encodeURIComponent('sandbox/claude-sonnet')}`, { authorization: `Bearer ${limited.key}` });
    expect(hidden.status).to.equal(404);
    expect(hidden.body.error.code).to.equal('model_not_found');

    const bad = await get(gateway, '/v1/models', { authorization: 'Bearer sk-gw-not-a-real-key' });
    expect(bad.status).to.equal(401);
    expect(bad.body).to.deep.equal({ error: { message: 'Invalid API key.', type: 'authentication_error', code: 'invalid_api_key', param: null } });

    const revoke = await gateway.admin('DELETE', `/admin/v1/api-keys/${limited.keyId}`);
    expect(revoke.status).to.equal(200);
    expect(revoke.body.status).to.equal('revoked');
    const after = await get(gateway, '/v1/models', { authorization: `Bearer ${limited.key}` });
    expect(after.status).to.equal(401);
  });

  it('retrieves a model whose id arrives percent-encoded, and 404s unknown ones', async () => {
    const found = await get(gateway, '/v1/models/sandbox%2Fclaude-sonnet');
    expect(found.status).to.equal(200);
    expect(found.body).to.deep.include({ id: 'sandbox/claude-sonnet', object: 'model', owned_by: 'gateway' });
    const lower = await get(gateway, '/v1/models/sandbox%2fclaude-sonnet');
    expect(lower.body.id).to.equal('sandbox/claude-sonnet');

    const missing = await get(gateway, '/v1/models/nobody%2Fnothing');
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({
      error: {
        message: 'The model `nobody/nothing` does not exist or you do not have access to it.',
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: null,
      },
    });
  });

  it('prices every visible model with its version, decimals, context window and free quota', async () => {
    const { status, body } = await get(gateway, '/v1/models/pricing');
    expect(status).to.equal(200);
    expect(body.currency).to.equal('USD');
    for (const entry of body.data) {
      expect(entry.price_version).to.equal(1);
      const amounts = entry.price.type === 'tokens' ? [entry.price.input_per_mtok, entry.price.output_per_mtok] : Object.values(entry.price.per_second);
      for (const amount of amounts) expect(amount).to.match(/^\d+\.\d{6}$/);
    }
    const video = body.data.find((e: any) => e.model === 'sandbox/seedance');
    expect(video.price.type).to.equal('video_seconds');
    expect(Object.keys(video.price.per_second)).to.include('720p');
  });

  it('leaks no provider credential, base URL or upstream model name in public responses', async () => {
    const secret = 'sk-ant-super-secret-credential-value';
    await gateway.close();
    gateway = await startTestGateway({ env: {} });
    process.env.ANTHROPIC_API_KEY = secret;
    try {
      await gateway.admin('POST', '/admin/v1/catalogue/reload');
      const { key } = await gateway.customerWithKey();
      const bodies: string[] = [];
      for (const path of ['/v1/models', '/v1/models/pricing', '/v1/models/anthropic%2Fclaude-sonnet-5', '/v1/models/nobody%2Fx']) {
        for (const headers of [{}, { authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
          const response = await fetch(gateway.url + path, { headers });
          bodies.push(await response.text());
        }
      }
      const all = bodies.join('\n');
      expect(all).to.include('anthropic/claude-sonnet-5'); // the real provider is enabled by its credential
      for (const forbidden of [secret, 'api.anthropic.com', 'claude-haiku-4-5-20251001', 'ANTHROPIC_API_KEY', 'credential', 'base_url', '127.0.0.1']) {
        expect(all).to.not.include(forbidden);
      }
      expect(gateway.rawLogs()).to.not.include(secret);
      expect(gateway.rawLogs()).to.not.include(key);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });
});
