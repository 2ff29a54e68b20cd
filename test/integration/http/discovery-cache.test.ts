import { expect } from 'chai';
import type { TokenPrice } from '../../../src/catalogue/types.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// Discovery answers are cacheable: an ETag per caller's view, Cache-Control, and 304 on a match.
describe('model discovery caching: ETag, Cache-Control and 304', () => {
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith() });
  });
  afterEach(async () => gateway.close());

  const get = (route: string, headers: Record<string, string> = {}) => fetch(gateway.url + route, { headers });

  for (const route of ['/v1/models', '/v1/models/pricing']) {
    it(`${route}: answers 304 with no body to a matching If-None-Match, private with a key, public without`, async () => {
      const { key } = await gateway.customerWithKey();
      const auth = { authorization: `Bearer ${key}` };
      const first = await get(route, auth);
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers.get('cache-control')).to.equal('private, max-age=60');
      expect(first.headers.get('vary')).to.equal('Authorization, x-api-key, anthropic-version, Origin');
      await first.json();

      const again = await get(route, { ...auth, 'if-none-match': etag });
      expect(again.status).to.equal(304);
      expect(await again.text()).to.equal('');
      expect(again.headers.get('etag')).to.equal(etag);
      expect(again.headers.get('request-id')).to.match(/^req_/);
      expect((await get(route, { ...auth, 'if-none-match': `"other", W/${etag}` })).status).to.equal(304);
      expect((await get(route, { ...auth, 'if-none-match': '"other"' })).status).to.equal(200);

      const anonymous = await get(route);
      expect(anonymous.headers.get('cache-control')).to.equal('public, max-age=60');
      expect(anonymous.headers.get('etag')).to.equal(etag); // the same view: the same validator
    });
  }

  it('gives callers who see different models different ETags, and changes them when the catalogue changes', async () => {
    const everything = await gateway.customerWithKey();
    const haikuOnly = await gateway.customerWithKey({ allowedModels: ['sandbox/claude-haiku'] });
    const etagOf = async (key: string, route = '/v1/models') => (await get(route, { authorization: `Bearer ${key}` })).headers.get('etag');
    const before = await etagOf(everything.key);
    const beforePricing = await etagOf(everything.key, '/v1/models/pricing');
    expect(await etagOf(haikuOnly.key)).to.not.equal(before);

    // A new price for haiku: the price list changes (and its ETag), the model list does not.
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { model: { 'sandbox/claude-haiku': (m) => void ((m.price as TokenPrice).input_per_mtok = '2.00') } }),
    );
    expect(reload.body.status).to.equal('reloaded');
    expect(await etagOf(everything.key, '/v1/models/pricing')).to.not.equal(beforePricing);
    const stale = await get('/v1/models/pricing', { authorization: `Bearer ${everything.key}`, 'if-none-match': beforePricing! });
    expect(stale.status).to.equal(200);
    expect(((await stale.json()) as any).data.find((m: any) => m.model === 'sandbox/claude-haiku').price.input_per_mtok).to.equal('2.000000');
  });
});
