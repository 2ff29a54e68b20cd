import fs from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import type { Catalogue, ModelEntry } from '../../../src/catalogue/types.ts';
import { changeCatalogue, routeVia, sampleCatalogueText, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { SAMPLE_CATALOGUE } from '../../helpers/gateway.ts';

const sample = () => parse(fs.readFileSync(SAMPLE_CATALOGUE, 'utf8')) as Catalogue;
const modelOf = (catalogue: Catalogue, id: string) => catalogue.models.find((m) => m.id === id);
const extra: ModelEntry = {
  id: 'test/extra',
  group: 'messages',
  routes: [{ provider: 'sandbox-anthropic', upstream_model: 'extra' }],
  price: { input_per_mtok: '1.00', output_per_mtok: '2.00' },
};

// Test catalogues are the sample with structured changes; a change naming what the catalogue
// lacks throws, where a string replacement that matched nothing left the catalogue as it was.
describe('test helper: the sample catalogue with changes', () => {
  it('without changes is the sample, and the gateway accepts it', () => {
    const text = sampleCatalogueText();
    expect(parse(text)).to.deep.equal(sample());
    expect(parseCatalogue(text, 'test').ok).to.equal(true);
  });

  it('lists added providers first and added models last, and applies edits by id', () => {
    const changed = parse(
      sampleCatalogueText({
        providers: [{ id: 'test-upstream', protocol: 'anthropic', base_url: 'http://127.0.0.1:1', credential_env: 'TEST_KEY' }],
        models: [extra],
        provider: { 'sandbox-anthropic': { timeouts: { connect_ms: 1 } } },
        model: {
          'sandbox/chat-model': (m) => void (routeVia(m, 'sandbox-openai-chat-backup').priority = 1),
          'sandbox/claude-haiku': { display_name: 'renamed' },
        },
        withoutFreeQuota: ['sandbox/seedance'],
      }),
    ) as Catalogue;
    const before = sample();
    expect(changed.providers.map((p) => p.id)).to.deep.equal(['test-upstream', ...before.providers.map((p) => p.id)]);
    expect(changed.models.map((m) => m.id)).to.deep.equal([...before.models.map((m) => m.id), 'test/extra']);
    expect(changed.providers.find((p) => p.id === 'sandbox-anthropic')!.timeouts).to.deep.equal({ connect_ms: 1 });
    expect(modelOf(changed, 'sandbox/chat-model')!.routes.map((r) => r.priority)).to.deep.equal([1, 1]);
    expect(modelOf(changed, 'sandbox/claude-haiku')!.display_name).to.equal('renamed');
    expect(modelOf(changed, 'sandbox/seedance')).to.not.have.property('free_quota');
    expect(modelOf(before, 'sandbox/seedance')).to.have.property('free_quota');
  });

  it('throws on a change naming what the catalogue does not have', () => {
    expect(() => sampleCatalogueText({ model: { 'sandbox/nothing': { display_name: 'x' } } })).to.throw('no model sandbox/nothing');
    expect(() => sampleCatalogueText({ provider: { 'sandbox-nothing': { timeouts: {} } } })).to.throw('no provider sandbox-nothing');
    // sandbox/h3 has no free quota to leave out.
    expect(() => sampleCatalogueText({ withoutFreeQuota: ['sandbox/h3'] })).to.throw('sandbox/h3 has no free_quota');
    expect(() => sampleCatalogueText({ model: { 'sandbox/h3': (m) => void (routeVia(m, 'sandbox-ark').priority = 2) } })).to.throw(
      'sandbox/h3 has no route via sandbox-ark',
    );
    expect(() => sampleCatalogueText({ models: [{ ...extra, id: 'sandbox/claude-haiku' }] })).to.throw('already has a model sandbox/claude-haiku');
    expect(() => sampleCatalogueText({ providers: [{ id: 'sandbox-ark', protocol: 'ark-video', sandbox: true }] })).to.throw(
      'already has a provider sandbox-ark',
    );
  });

  it('edits a changed catalogue again (a reload), and writes the sample with changes to a file of its own', () => {
    const once = sampleCatalogueText({ models: [extra] });
    const twice = parse(changeCatalogue(once, { model: { 'test/extra': { display_name: 'again' } } })) as Catalogue;
    expect(modelOf(twice, 'test/extra')!.display_name).to.equal('again');
    expect(() => changeCatalogue(once, { models: [extra] })).to.throw('already has a model test/extra');

    const a = sampleCatalogueWith({ models: [extra] });
    const b = sampleCatalogueWith();
    expect(a).to.not.equal(b);
    expect(parse(fs.readFileSync(a, 'utf8'))).to.deep.equal(parse(once));
  });
});
