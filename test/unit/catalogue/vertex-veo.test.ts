import { expect } from 'chai';
import { stringify } from 'yaml';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import type { Catalogue, ProviderEntry } from '../../../src/catalogue/types.ts';
import { pricedTier, resolutionTiers } from '../../../src/catalogue/video-tiers.ts';
import { resolveProviders } from '../../../src/providers/registry.ts';

const BASE = 'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1';
const veoModel = (price: Record<string, string>, video: Record<string, unknown> = {}) => ({
  id: 'google/veo',
  group: 'video' as const,
  routes: [{ provider: 'vertex', upstream_model: 'veo-3.1-generate-001' }],
  video: { seconds: [4, 6, 8], cancellable: false, inline_base64: false, content_types: ['text' as const], audio: true, ratios: ['16:9'], ...video },
  price: { per_second: price },
});
const catalogue = (provider: Partial<ProviderEntry>, models: unknown[] = []): Catalogue =>
  ({
    service_name: 'gateway',
    currency: 'USD',
    providers: [
      { id: 'vertex', protocol: 'vertex-veo', base_url: BASE, credential_env: 'VERTEX_SERVICE_ACCOUNT_KEY', storage_uri: 'gs://bucket/veo/', ...provider },
      { id: 'ark', protocol: 'ark-video', sandbox: true },
    ],
    models,
  }) as Catalogue;
const errorsOf = (value: Catalogue) => {
  const result = parseCatalogue(stringify(value), 'c.yaml');
  return result.ok ? [] : result.errors;
};

describe('catalogue: vertex-veo providers and sound prices', () => {
  it('accepts a Veo provider with its bucket, and a model priced with and without sound', () => {
    expect(errorsOf(catalogue({}, [veoModel({ '720p': '0.20', '1080p': '0.20', '720p+audio': '0.40', '1080p+audio': '0.40' })]))).to.deep.equal([]);
    expect(errorsOf(catalogue({ storage_base_url: 'http://127.0.0.1:4443/storage/v1' }, [veoModel({ '720p': '0.20' })]))).to.deep.equal([]);
  });

  it('refuses a vertex-veo provider without storage_uri (inline output), with a base_url that is not a location, or a bad gs:// URI', () => {
    const { storage_uri: _none, ...withoutStorage } = catalogue({}).providers[0]!;
    const noBucket = catalogue({});
    noBucket.providers[0] = withoutStorage as ProviderEntry;
    expect(errorsOf(noBucket)).to.deep.equal([
      "c.yaml: providers.0 (vertex): a vertex-veo provider needs storage_uri (gs://bucket/prefix/): Veo writes the videos to the operator's bucket, and inline Base64 output is not supported (the gateway keeps no artifacts)",
    ]);
    expect(errorsOf(catalogue({ base_url: 'https://us-central1-aiplatform.googleapis.com/v1' }))).to.deep.equal([
      'c.yaml: providers.0 (vertex).base_url: a vertex-veo base_url ends in /v1/projects/{project}/locations/{location}',
    ]);
    expect(errorsOf(catalogue({ storage_uri: 'https://storage.googleapis.com/bucket' }))[0]).to.match(/providers\.0\.storage_uri/);
  });

  it('keeps storage settings to vertex-veo, and storage_base_url off sandbox providers', () => {
    const value = catalogue({});
    value.providers[1] = { id: 'ark', protocol: 'ark-video', sandbox: true, storage_uri: 'gs://bkt/' };
    expect(errorsOf(value)).to.deep.equal(['c.yaml: providers.1 (ark).storage_uri: only vertex-veo providers write to a bucket']);
    const sandboxVeo = catalogue({});
    sandboxVeo.providers[0] = { id: 'vertex', protocol: 'vertex-veo', sandbox: true, storage_uri: 'gs://bkt/', storage_base_url: 'http://x/storage/v1' };
    expect(errorsOf(sandboxVeo).join('\n')).to.match(/storage_base_url is not allowed here/);
  });

  it('takes a +audio price only with a sound switch, a priced base tier, and a protocol that always sends the switch', () => {
    expect(errorsOf(catalogue({}, [veoModel({ '720p': '0.20', '720p+audio': '0.40' }, { audio: false })]))).to.deep.equal([
      'c.yaml: models.0 (google/veo).price.per_second.720p+audio: a sound price needs video.audio: true',
    ]);
    expect(errorsOf(catalogue({}, [veoModel({ '720p': '0.20', '1080p+audio': '0.40' })]))).to.deep.equal([
      'c.yaml: models.0 (google/veo).price.per_second.1080p+audio: 1080p itself has no price',
    ]);
    const ark = catalogue({}, [
      {
        id: 'v/seedance',
        group: 'video',
        routes: [{ provider: 'ark' }],
        video: { seconds: [5], cancellable: true, inline_base64: false, content_types: ['text'], audio: true },
        price: { per_second: { '720p': '0.10', '720p+audio': '0.20' } },
      },
    ]);
    expect(errorsOf(ark)).to.deep.equal([
      'c.yaml: models.0 (v/seedance).price.per_second.720p+audio: ark-video does not always send the sound switch, so sound cannot be priced apart',
    ]);
    expect(errorsOf(catalogue({}, [veoModel({ '720p': '0.20', '720p+sound': '0.40' })]))[0]).to.match(/price\.per_second/);
  });

  it('offers Veo only what Vertex takes: 4, 6 or 8 s, 720p or 1080p, 16:9 or 9:16, text', () => {
    const errors = errorsOf(
      catalogue({}, [veoModel({ '720p': '0.20', '4k': '0.60' }, { seconds: [5], ratios: ['1:1'], content_types: ['text', 'image_url'], watermark: true })]),
    );
    expect(errors).to.have.members([
      'c.yaml: models.0 (google/veo).video.content_types: vertex-veo does not take image_url (it takes text)',
      'c.yaml: models.0 (google/veo).video.seconds: vertex-veo does not take 5 (it takes 4, 6, 8)',
      'c.yaml: models.0 (google/veo).price.per_second: vertex-veo does not take 4k (it takes 720p, 1080p)',
      'c.yaml: models.0 (google/veo).video.ratios: vertex-veo does not take 1:1 (it takes 16:9, 9:16)',
      'c.yaml: models.0 (google/veo).video.watermark: vertex-veo has no watermark switch',
    ]);
  });

  it('a request is priced at <resolution>+audio when it asks for sound and the model prices it', () => {
    const prices = { '720p': '0.20', '1080p': '0.30', '720p+audio': '0.40' };
    expect(resolutionTiers(prices)).to.deep.equal(['720p', '1080p']);
    expect(pricedTier(prices, '720p', true)).to.equal('720p+audio');
    expect(pricedTier(prices, '720p', false)).to.equal('720p');
    expect(pricedTier(prices, '1080p', true)).to.equal('1080p'); // no sound price: sound costs what silence does
  });

  it('the registry passes the bucket on, and gives a sandbox provider the credential its simulator hands out', () => {
    const entries: ProviderEntry[] = [
      {
        id: 'vertex',
        protocol: 'vertex-veo',
        base_url: BASE,
        credential_env: 'VEO_KEY',
        storage_uri: 'gs://b/p/',
        storage_base_url: 'https://gcs.example/storage/v1',
      },
      { id: 'sandbox-vertex-veo', protocol: 'vertex-veo', sandbox: true, storage_uri: 'gs://sandbox-bucket/veo/' },
      { id: 'sandbox-ark', protocol: 'ark-video', sandbox: true },
    ];
    const providers = resolveProviders(entries, {
      env: { VEO_KEY: '{"client_email":"a"}' },
      sandbox: true,
      sandboxUrls: new Map([['sandbox-vertex-veo', 'http://127.0.0.1:1/v1/projects/p/locations/l']]),
      sandboxCredentials: new Map([['sandbox-vertex-veo', '{"sandbox":"key"}']]),
    });
    expect(providers.get('vertex')!.storage).to.deep.equal({ uri: 'gs://b/p/', apiBaseUrl: 'https://gcs.example/storage/v1' });
    expect(providers.get('sandbox-vertex-veo')!.storage).to.deep.equal({ uri: 'gs://sandbox-bucket/veo/', apiBaseUrl: undefined });
    expect(providers.get('sandbox-vertex-veo')!.credential()).to.equal('{"sandbox":"key"}');
    expect(providers.get('sandbox-ark')!.credential()).to.equal('sandbox');
    expect(JSON.stringify([...providers.values()])).to.not.include('client_email');
  });
});
