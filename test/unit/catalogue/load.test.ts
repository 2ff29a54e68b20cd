import fs from 'node:fs';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import { VIDEO_PROTOCOLS, type Catalogue } from '../../../src/catalogue/types.ts';
import { SAMPLE_CATALOGUE } from '../../helpers/gateway.ts';

const base = (): Catalogue => ({
  service_name: 'gateway',
  currency: 'USD',
  providers: [
    { id: 'a', protocol: 'anthropic', base_url: 'https://a.example', credential_env: 'A_KEY' },
    { id: 'v', protocol: 'ark-video', sandbox: true },
  ],
  models: [
    { id: 'a/m', group: 'messages', routes: [{ provider: 'a' }], price: { input_per_mtok: '3', output_per_mtok: '15' } },
    {
      id: 'v/m',
      group: 'video',
      routes: [{ provider: 'v' }],
      video: { seconds: [5], cancellable: true, inline_base64: false, content_types: ['text'] },
      price: { per_second: { '720p': '0.10' } },
    },
  ],
});

const errorsOf = (catalogue: unknown) => {
  const result = parseCatalogue(stringify(catalogue), 'c.yaml');
  if (result.ok) throw new Error('expected errors');
  return result.errors.join('\n');
};

describe('catalogue parsing', () => {
  it('accepts a valid catalogue', () => {
    expect(parseCatalogue(stringify(base()), 'c.yaml').ok).to.equal(true);
  });

  it('reports YAML syntax errors with their line', () => {
    const result = parseCatalogue('service_name: gateway\nproviders: [\n  {id: a\n', 'c.yaml');
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.errors[0]).to.match(/c\.yaml: YAML .*line \d+/);
  });

  it('names the path of schema errors', () => {
    const c = base() as any;
    c.models[0].price.input_per_mtok = '3.0000001';
    c.providers[0].colour = 'blue';
    c.models[1].group = 'audio';
    const errors = errorsOf(c);
    expect(errors).to.include('models.0.price.input_per_mtok must match pattern');
    expect(errors).to.include('providers.0 unknown field "colour"');
    expect(errors).to.include('models.1.group must be one of messages, chat, video');
  });

  it('requires credentials for real providers and forbids them on sandbox ones', () => {
    const c = base() as any;
    delete c.providers[0].credential_env;
    c.providers[1].base_url = 'https://x.example';
    const errors = errorsOf(c);
    expect(errors).to.include("providers.0 must have required property 'credential_env'");
    expect(errors).to.include('providers.1.base_url is not allowed here');
  });

  it('checks what the schema cannot: duplicates, unknown providers, protocol fit, quota units', () => {
    const c = base() as any;
    c.providers.push({ ...c.providers[0] });
    c.models.push({ ...c.models[0] });
    c.models[0].routes.push({ provider: 'nobody' });
    c.models[1].routes.push({ provider: 'a' });
    c.models[0].free_quota = { amount: 10, unit: 'seconds', period: 'day' };
    c.models.push({ id: 'c/m', group: 'chat', routes: [{ provider: 'v' }], price: { input_per_mtok: '1', output_per_mtok: '1' } });
    const errors = errorsOf(c);
    expect(errors).to.include('providers: duplicate id "a"');
    expect(errors).to.include('models: duplicate id "a/m"');
    expect(errors).to.include('unknown provider "nobody"');
    expect(errors).to.include('a video model needs a video protocol');
    expect(errors).to.include('a chat model cannot use the video protocol ark-video');
    expect(errors).to.include('free_quota: unit "seconds" does not fit a messages model');
  });

  it('requires video settings and per-second prices on video models, and token prices elsewhere', () => {
    const c = base() as any;
    delete c.models[1].video;
    c.models[0].price = { per_second: { '720p': '1' } };
    const errors = errorsOf(c);
    expect(errors).to.include("models.1 must have required property 'video'");
    expect(errors).to.include("models.0.price must have required property 'input_per_mtok'");
  });

  it('ships a sample with a sandbox model for every group and every protocol', () => {
    const result = parseCatalogue(fs.readFileSync(SAMPLE_CATALOGUE, 'utf8'), 'sample');
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const providers = new Map(result.catalogue.providers.map((p) => [p.id, p]));
    const sandboxModels = result.catalogue.models.filter((m) => m.id.startsWith('sandbox/'));
    const groups = new Set(sandboxModels.map((m) => m.group));
    const protocols = new Set(sandboxModels.flatMap((m) => m.routes.map((r) => providers.get(r.provider)!)).filter((p) => p.sandbox).map((p) => p.protocol));
    expect([...groups].sort()).to.deep.equal(['chat', 'messages', 'video']);
    expect([...protocols].sort()).to.deep.equal(['anthropic', ...VIDEO_PROTOCOLS].sort());
    for (const provider of result.catalogue.providers.filter((p) => !p.sandbox)) expect(provider.credential_env).to.match(/_API_KEY$/);
  });
});
