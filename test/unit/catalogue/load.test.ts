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

const errorsOfText = (text: string) => {
  const result = parseCatalogue(text, 'c.yaml');
  if (result.ok) throw new Error('expected errors');
  return result.errors.join('\n');
};
const errorsOf = (catalogue: unknown) => errorsOfText(stringify(catalogue));

describe('catalogue parsing', () => {
  it('accepts a valid catalogue', () => {
    expect(parseCatalogue(stringify(base()), 'c.yaml').ok).to.equal(true);
  });

  it('reports YAML syntax errors with their line', () => {
    const result = parseCatalogue('service_name: gateway\nproviders: [\n  {id: a\n', 'c.yaml');
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.errors[0]).to.match(/^c\.yaml: line 4, column 1: YAML syntax error: /);
    const duplicateKey = parseCatalogue('service_name: a\ncurrency: USD\nservice_name: b\n', 'c.yaml');
    expect(duplicateKey).to.deep.equal({ ok: false, errors: ['c.yaml: line 3, column 1: YAML syntax error: Map keys must be unique'] });
  });

  it('tells the author to quote prices that YAML read as numbers', () => {
    const text = stringify(base()).replace('input_per_mtok: "3"', 'input_per_mtok: 3.00');
    expect(errorsOfText(text)).to.include('models.0.price.input_per_mtok must be a quoted decimal string such as "3.00"');
  });

  it('refuses empty seconds, empty price tiers and a base_url that is not a URL', () => {
    const c = base() as any;
    c.models[1].video.seconds = [];
    c.models[1].price.per_second = {};
    c.providers[0].base_url = 'api.example.com';
    const errors = errorsOf(c);
    expect(errors).to.include('models.1.video.seconds must NOT have fewer than 1 items');
    expect(errors).to.include('models.1.price.per_second must NOT have fewer than 1 properties');
    expect(errors).to.include('providers.0.base_url must match format "uri"');
  });

  it('names the path of schema errors', () => {
    const c = base() as any;
    c.models[0].price.input_per_mtok = '3.0000001';
    c.providers[0].colour = 'blue';
    c.models[1].group = 'audio';
    const errors = errorsOf(c);
    expect(errors).to.include('models.0.price.input_per_mtok must match pattern');
    expect(errors).to.include('providers.0 unknown field "colour"');
    expect(errors).to.include('models.1.group must be one of messages, chat, responses, gemini, video');
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

  it('keeps chat models on openai-chat providers, and openai-chat providers off messages models', () => {
    const c = base() as any;
    c.providers.push({ id: 'o', protocol: 'openai-chat', base_url: 'https://api.openai.example/v1', credential_env: 'O_KEY' });
    c.models.push({ id: 'o/chat', group: 'chat', routes: [{ provider: 'a' }, { provider: 'o' }], price: { input_per_mtok: '1', output_per_mtok: '2' } });
    c.models[0].routes.push({ provider: 'o' });
    const errors = errorsOf(c);
    expect(errors).to.include('c.yaml: models.2 (o/chat).routes.0: a chat model needs an openai-chat provider');
    expect(errors).to.include('c.yaml: models.0 (a/m).routes.1: a messages model needs an anthropic provider');
    expect(errors).to.not.include('routes.1: a chat model');
    c.models[2].routes.shift();
    c.models[0].routes.pop();
    expect(parseCatalogue(stringify(c), 'c.yaml').ok).to.equal(true);
  });

  it('takes a retirement with an ISO date, and a replacement only if it is a live model of the same group', () => {
    const c = base() as any;
    c.models.push({ ...c.models[0], id: 'a/old', retired: { date: '2026-09-24', replacement: 'a/m' } });
    expect(parseCatalogue(stringify(c), 'c.yaml').ok).to.equal(true);
    c.models[2].retired = { date: '24.09.2026' };
    expect(errorsOf(c)).to.include('models.2.retired.date must match format "date"');
    c.models[2].retired = { date: '2026-09-24', replacement: 'a/nothing' };
    expect(errorsOf(c)).to.include('models.2 (a/old).retired.replacement: unknown model "a/nothing"');
    c.models[2].retired.replacement = 'v/m';
    expect(errorsOf(c)).to.include('models.2 (a/old).retired.replacement: "v/m" is a video model, not messages');
    c.models[0].retired = { date: '2026-10-01' };
    c.models[2].retired.replacement = 'a/m';
    expect(errorsOf(c)).to.include('models.2 (a/old).retired.replacement: "a/m" is retired too');
  });

  it('keeps messages models on anthropic providers and reference images with image_url', () => {
    const c = base() as any;
    c.models[0].routes = [{ provider: 'v' }];
    c.models[1].video.reference_images = { max: 9 };
    c.models[1].free_quota = { amount: 5, unit: 'tokens', period: 'month' };
    const errors = errorsOf(c);
    expect(errors).to.include('c.yaml: models.0 (a/m).routes.0: a messages model needs an anthropic provider');
    expect(errors).to.include('c.yaml: models.1 (v/m).video: reference_images needs image_url among content_types');
    expect(errors).to.include('c.yaml: models.1 (v/m).free_quota: unit "tokens" does not fit a video model');
    c.models[1].video.content_types.push('image_url');
    c.models[1].free_quota.unit = 'requests';
    c.models[0].routes = [{ provider: 'a' }];
    expect(parseCatalogue(stringify(c), 'c.yaml').ok).to.equal(true);
  });

  it('offers on a video model only what its protocol can carry, so no option is dropped upstream', () => {
    const c = base() as any;
    c.providers.push({ id: 'o', protocol: 'openai-videos', sandbox: true }, { id: 'h', protocol: 'minimax-video-v2', sandbox: true });
    const video = (extra: object) => ({ seconds: [4], cancellable: false, inline_base64: false, content_types: ['text'], ...extra });
    c.models.push(
      {
        id: 'o/no-sizes',
        group: 'video',
        routes: [{ provider: 'o' }],
        video: video({ ratios: ['16:9'], audio: true, watermark: true }),
        price: { per_second: { '720p': '1' } },
      },
      {
        id: 'o/sized',
        group: 'video',
        routes: [{ provider: 'o' }],
        video: video({ seconds: [5], sizes: { '1280x720': { resolution: 'hd', ratio: '16:9' }, '1920x1080': { resolution: '1080p', ratio: '16:9' } } }),
        price: { per_second: { hd: '1', '1080p': '2' } },
      },
      {
        id: 'h/m',
        group: 'video',
        routes: [{ provider: 'h' }],
        video: video({ audio: true, ratios: ['5:4'], content_types: ['text', 'image_url'], reference_images: { max: 9 } }),
        price: { per_second: { '720p': '1' } },
      },
      {
        id: 'v/mixed',
        group: 'video',
        routes: [{ provider: 'v' }, { provider: 'h' }],
        video: video({ sizes: { '1280x720': { resolution: '1080p', ratio: '16:9' } } }),
        price: { per_second: { '720p': '1' } },
      },
    );
    const errors = errorsOf(c);
    for (const expected of [
      'models.2 (o/no-sizes).video.sizes: openai-videos takes a pixel size only; list the sizes it may be asked for',
      'models.2 (o/no-sizes).video.ratios: openai-videos takes no ratio; the ratios are those of video.sizes',
      'models.2 (o/no-sizes).video.audio: openai-videos has no sound switch (generate_audio)',
      'models.2 (o/no-sizes).video.watermark: openai-videos has no watermark switch',
      'models.3 (o/sized).video.seconds: openai-videos does not take 5 (it takes 4, 8, 12)',
      'models.3 (o/sized).video.sizes: openai-videos does not take 1920x1080',
      'models.3 (o/sized).video.sizes.1280x720: openai-videos answers are billed by the shorter side, so its resolution must be 720p',
      'models.4 (h/m).video.audio: minimax-video-v2 has no sound switch (generate_audio)',
      'models.4 (h/m).video.ratios: minimax-video-v2 does not take 5:4',
      'models.4 (h/m).price.per_second: minimax-video-v2 does not take 720p (it takes 480P, 768P, 1080P, 2K)',
      "models.5 (v/mixed).routes: a video model's routes must speak one protocol (ark-video, minimax-video-v2)",
    ]) {
      expect(errors).to.include(expected);
    }
    c.models = c.models.slice(0, 2);
    c.models[1].video = { ...c.models[1].video, sizes: { '1280x720': { resolution: '1080p', ratio: '16:9' } } };
    expect(errorsOf(c)).to.include('models.1 (v/m).video.sizes.1280x720: resolution 1080p has no price in price.per_second');
  });

  it('takes long-context tiers whose thresholds are whole, strictly increasing and below the context window', () => {
    const c = base() as any;
    c.models[0].context_window = 1_000_000;
    c.models[0].price.cache_read_per_mtok = '0.30';
    c.models[0].price.tiers = [
      { above_input_tokens: 200_000, input_per_mtok: '6', output_per_mtok: '22.50' },
      { above_input_tokens: 500_000, input_per_mtok: '9', output_per_mtok: '30', cache_read_per_mtok: '0.90' },
    ];
    expect(parseCatalogue(stringify(c), 'c.yaml').ok).to.equal(true);
    c.models[0].price.tiers[1].above_input_tokens = 200_000;
    expect(errorsOf(c)).to.include('models.0 (a/m).price.tiers.1.above_input_tokens: thresholds must strictly increase (200000 after 200000)');
    c.models[0].price.tiers[1].above_input_tokens = 1_000_000;
    expect(errorsOf(c)).to.include('models.0 (a/m).price.tiers.1.above_input_tokens: 1000000 is not below the context window (1000000)');
    c.models[0].price.tiers[1].above_input_tokens = 0;
    expect(errorsOf(c)).to.include('models.0.price.tiers.1.above_input_tokens must be >= 1');
    c.models[0].price.tiers[1].above_input_tokens = 2.5;
    expect(errorsOf(c)).to.include('models.0.price.tiers.1.above_input_tokens must be integer');
    c.models[0].price.tiers[1] = { above_input_tokens: 300_000, input_per_mtok: 9, output_per_mtok: '30', extra: 1 };
    const errors = errorsOf(c);
    expect(errors).to.include('models.0.price.tiers.1.input_per_mtok must be a quoted decimal string such as "3.00"');
    expect(errors).to.include('models.0.price.tiers.1 unknown field "extra"');
    // A cache price left out follows the input step; a free base input has none to follow.
    c.models[0].price = {
      input_per_mtok: '0',
      output_per_mtok: '1',
      cache_read_per_mtok: '0.10',
      tiers: [{ above_input_tokens: 10, input_per_mtok: '1', output_per_mtok: '1' }],
    };
    expect(errorsOf(c)).to.include(
      'models.0 (a/m).price.tiers.0: set cache_read_per_mtok (a cache price left out follows the input step, and a base input price of 0 has none)',
    );
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
    const protocols = new Set(
      sandboxModels
        .flatMap((m) => m.routes.map((r) => providers.get(r.provider)!))
        .filter((p) => p.sandbox)
        .map((p) => p.protocol),
    );
    expect([...groups].sort()).to.deep.equal(['chat', 'gemini', 'messages', 'responses', 'video']);
    expect([...protocols].sort()).to.deep.equal(['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'vertex-gemini', ...VIDEO_PROTOCOLS].sort());
    // An API key, or (Vertex) a service account's key.
    for (const provider of result.catalogue.providers.filter((p) => !p.sandbox)) expect(provider.credential_env).to.match(/_(API|SERVICE_ACCOUNT)_KEY$/);
    expect(sandboxModels.map((m) => m.id)).to.include.members([
      'sandbox/claude-sonnet',
      'sandbox/claude-haiku',
      'sandbox/chat-model',
      'sandbox/gemini-pro',
      'sandbox/gemini-flash',
      'sandbox/compatible-video',
      'sandbox/seedance',
      'sandbox/h3',
    ]);
    const h3 = result.catalogue.models.find((m) => m.id === 'minimax/h3')!;
    expect(h3.video).to.deep.include({ seconds: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], reference_images: { max: 9 } });
    expect(Object.keys(h3.price)).to.deep.equal(['per_second']);
  });
});
