// GET /admin/v1/catalogue: what the operator's Catalogue screen shows. The public price list lists
// only models a customer can reach now; an operator needs every provider (and why it is off),
// every model (and why it cannot be reached), the retired ones and the aliases, with no
// credential value or provider host in the answer.
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('the catalogue as operators see it (GET /admin/v1/catalogue)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  const saved = { ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY, KLING_API_KEY: process.env.KLING_API_KEY };
  before(async () => {
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.KLING_API_KEY;
    gateway = await startTestGateway();
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    await gateway?.close();
  });

  const overview = async () => {
    const answer = await gateway.admin('GET', '/admin/v1/catalogue');
    expect(answer.status).to.equal(200);
    return answer.body;
  };
  const provider = (body: any, id: string) => body.providers.find((p: any) => p.id === id);
  const model = (body: any, id: string) => body.models.find((m: any) => m.id === id);

  it('lists every provider with whether it can be called, every model with why it cannot, the retired ones and the aliases', async () => {
    const body = await overview();
    const pricing = (await (await fetch(`${gateway.url}/v1/models/pricing`)).json()) as any;
    expect(pricing.data.map((m: any) => m.model)).to.not.include('anthropic/claude-sonnet-5'); // what the old screen showed: reachable ones only
    expect(body.models.length).to.be.greaterThan(pricing.data.length);

    expect(provider(body, 'anthropic')).to.deep.equal({
      id: 'anthropic',
      protocol: 'anthropic',
      sandbox: false,
      credential_env: 'ANTHROPIC_API_KEY',
      credential_set: false,
      state: 'credential_missing',
    });
    expect(provider(body, 'sandbox-anthropic')).to.deep.include({ sandbox: true, credential_env: null, credential_set: null, state: 'enabled' });

    expect(model(body, 'anthropic/claude-sonnet-5')).to.deep.include({
      state: 'unreachable',
      reason: 'No provider of its routes can be called (anthropic: ANTHROPIC_API_KEY is not set).',
      aliases: ['claude-sonnet-5'],
      routes: [{ provider: 'anthropic', upstream_model: 'claude-sonnet-5', priority: 1, provider_state: 'credential_missing' }],
    });
    expect(model(body, 'sandbox/claude-haiku')).to.deep.include({ state: 'reachable', reason: null });
    expect(model(body, 'sandbox/sora-2')).to.deep.include({
      state: 'retired',
      reason: 'Retired since 2026-09-24; use sandbox/compatible-video.',
      retired: { date: '2026-09-24', replacement: 'sandbox/compatible-video' },
    });
    // The alias Claude Code sends, answered by the sandbox stand-in while no Anthropic key is set.
    expect(body.aliases.find((a: any) => a.alias === 'claude-opus-5-5')).to.deep.equal({
      alias: 'claude-opus-5-5',
      model: 'sandbox/claude-opus',
      listed: false,
    });
    // Patterns: as each model declares them, and the model each takes names for now (the sandbox
    // stand-in's, while the real model's provider has no key: a pattern of a model nothing serves takes none).
    expect(model(body, 'anthropic/claude-opus-5-5').patterns).to.deep.equal(['claude-opus-*', 'claude-3*-opus-*']);
    expect(body.patterns).to.deep.include({ pattern: 'claude-opus-*', model: 'sandbox/claude-opus' });
    expect(body.patterns).to.deep.include({ pattern: 'gemini-*-pro*', model: 'sandbox/gemini-pro' });
    expect(body.patterns.filter((p: any) => p.model.startsWith('anthropic/'))).to.deep.equal([]);
  });

  it('says a credential is set or refused without showing it or any provider host', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-value-that-must-not-appear';
    process.env.KLING_API_KEY = 'not-an-access-and-secret-pair';
    expect((await gateway.admin('POST', '/admin/v1/catalogue/reload')).status).to.equal(200);
    const body = await overview();
    expect(provider(body, 'anthropic')).to.include({ credential_set: true, state: 'enabled' });
    expect(provider(body, 'kling')).to.include({ credential_env: 'KLING_API_KEY', credential_set: true, state: 'credential_invalid' });
    expect(model(body, 'kling/kling-v3')).to.deep.include({
      state: 'unreachable',
      reason: 'No provider of its routes can be called (kling: KLING_API_KEY is set but refused (the log says why)).',
    });
    expect(model(body, 'anthropic/claude-sonnet-5')).to.include({ state: 'reachable' });
    const text = JSON.stringify(body);
    expect(text).to.not.contain('sk-ant-value').and.not.contain('not-an-access').and.not.contain('api.anthropic.com').and.not.contain('127.0.0.1');
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.KLING_API_KEY;
    await gateway.admin('POST', '/admin/v1/catalogue/reload');
  });
});
