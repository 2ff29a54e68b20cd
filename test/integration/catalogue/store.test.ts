import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createCatalogueStore, type CatalogueStore } from '../../../src/catalogue/store.ts';
import { syncPriceVersions } from '../../../src/catalogue/price-versions.ts';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import type { TokenPrice } from '../../../src/catalogue/types.ts';
import { createLogger } from '../../../src/logger.ts';
import { resolveProviders } from '../../../src/providers/registry.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../../helpers/db.ts';
import { sampleCatalogueText } from '../../helpers/catalogue.ts';
import { SAMPLE_CATALOGUE } from '../../helpers/gateway.ts';

const sample = fs.readFileSync(SAMPLE_CATALOGUE, 'utf8');
const withSonnetPrice = (edit: (price: TokenPrice) => void) => sampleCatalogueText({ model: { 'sandbox/claude-sonnet': (m) => edit(m.price as TokenPrice) } });
const withSonnetInput = (input: string) => withSonnetPrice((price) => void (price.input_per_mtok = input));

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('catalogue store', () => {
  let dir: string;
  let file: string;
  let store: CatalogueStore | undefined;
  let logs: string;

  beforeEach(async () => {
    await resetDatabase(await getTestDatabase());
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-'));
    file = path.join(dir, 'catalogue.yaml');
    fs.writeFileSync(file, sample);
    logs = '';
  });
  afterEach(() => {
    store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const open = async () => {
    const sink = new Writable({ write: (chunk, _e, cb) => ((logs += chunk.toString()), cb()) });
    store = await createCatalogueStore({
      path: file,
      resolveProviders,
      db: await getTestDatabase(),
      logger: createLogger('info', sink),
      env: {},
      sandbox: true,
      sandboxUrls: new Map(),
    });
    return store;
  };
  const sonnet = () => store!.current().models.get('sandbox/claude-sonnet')!;

  it('refuses to start on a bad file', async () => {
    fs.writeFileSync(file, 'service_name: [');
    let error: Error | undefined;
    await open().catch((e: Error) => (error = e));
    expect(error?.message).to.include('invalid catalogue');
  });

  it('versions prices: same price no new version, changed price a new one, A -> B -> A a third', async () => {
    await open();
    expect(sonnet().priceVersion.version).to.equal(1);
    expect(await store!.reload()).to.include({ ok: true, status: 'unchanged' });
    expect(sonnet().priceVersion.version).to.equal(1);

    fs.writeFileSync(file, withSonnetInput('3.000000')); // same price, other spelling
    const same = await store!.reload();
    expect(same).to.deep.include({ ok: true, status: 'reloaded', priceVersionsCreated: [] });

    fs.writeFileSync(file, withSonnetInput('4.00'));
    const changed = await store!.reload();
    expect(changed).to.deep.include({ priceVersionsCreated: [{ model: 'sandbox/claude-sonnet', price_version: 2 }] });
    expect(sonnet().priceVersion.version).to.equal(2);
    expect(sonnet().price).to.include({ input_per_mtok: '4.00' });

    fs.writeFileSync(file, sample);
    await store!.reload();
    expect(sonnet().priceVersion.version).to.equal(3);
    const rows = await (await getTestDatabase())('price_versions').where({ model_id: 'sandbox/claude-sonnet' }).orderBy('version');
    expect(rows.map((r) => r.price.input_per_mtok)).to.deep.equal(['3.000000', '4.000000', '3.000000']);
  });

  it('freezes long-context tiers in a price version as a list, thresholds as numbers; a tier change is a new version', async () => {
    await open();
    const rows = async () => (await getTestDatabase())('price_versions').where({ model_id: 'sandbox/claude-sonnet' }).orderBy('version');
    const tier = {
      above_input_tokens: 200_000,
      cache_read_per_mtok: '0.600000',
      cache_write_per_mtok: '7.500000',
      input_per_mtok: '6.000000',
      output_per_mtok: '22.500000',
    };
    expect((await rows())[0].price.tiers).to.deep.equal([tier]);
    fs.writeFileSync(
      file,
      withSonnetPrice((price) => void (price.tiers![0]!.above_input_tokens = 250000)),
    );
    expect(await store!.reload()).to.deep.include({ priceVersionsCreated: [{ model: 'sandbox/claude-sonnet', price_version: 2 }] });
    expect((await rows()).map((r) => r.price.tiers)).to.deep.equal([[tier], [{ ...tier, above_input_tokens: 250_000 }]]);
    expect(sonnet().priceVersion.version).to.equal(2);
  });

  it('hot-reloads a change, and keeps the last good catalogue when the file turns bad', async () => {
    await open();
    store!.watch(100);
    fs.writeFileSync(file, withSonnetInput('5.00'));
    await until(() => sonnet().priceVersion.version === 2);

    fs.writeFileSync(file, withSonnetInput('not-a-price'));
    await until(() => logs.includes('catalogue change rejected'));
    expect(sonnet().priceVersion.version).to.equal(2);
    expect(sonnet().price).to.include({ input_per_mtok: '5.00' });
    const warn = logs.split('\n').find((l) => l.includes('catalogue change rejected'))!;
    expect(JSON.parse(warn).level).to.equal(40);
    expect(warn).to.include('input_per_mtok must match pattern');

    const manual = await store!.reload();
    expect(manual.ok).to.equal(false);
  });

  it('tells reload listeners about changed content only, and looks models up by id', async () => {
    await open();
    const seen: Array<{ version: number; status: string }> = [];
    const stop = store!.onReload((catalogue, result) =>
      seen.push({ version: catalogue.model('sandbox/claude-sonnet')!.priceVersion.version, status: result.status }),
    );
    expect(await store!.reload()).to.include({ status: 'unchanged' });
    fs.writeFileSync(file, withSonnetInput('6.00'));
    await store!.reload();
    expect(seen).to.deep.equal([{ version: 2, status: 'reloaded' }]);
    expect(store!.current().model('nobody/none')).to.equal(undefined);
    stop();
    fs.writeFileSync(file, sample);
    await store!.reload();
    expect(seen).to.have.length(1);
  });

  it('lists sandbox models before their simulators run, with no base URL to call', async () => {
    await open();
    const [route] = store!.current().model('sandbox/h3')!.routes;
    expect(route).to.deep.include({ upstreamModel: 'MiniMax-H3', priority: 1 });
    expect(route!.provider).to.include({ id: 'sandbox-minimax', sandbox: true, baseUrl: undefined });
  });

  it('enables a real provider only when its credential variable is set', async () => {
    await open();
    expect(store!.current().models.get('anthropic/claude-sonnet-5')!.routes).to.have.length(0);
    expect(
      store!
        .current()
        .models.get('sandbox/claude-sonnet')!
        .routes.map((r) => r.provider.id),
    ).to.deep.equal(['sandbox-anthropic', 'sandbox-anthropic-backup']);
    store!.close();
    store = await createCatalogueStore({
      path: file,
      resolveProviders,
      db: await getTestDatabase(),
      logger: createLogger('silent'),
      env: { ANTHROPIC_API_KEY: 'sk-ant-x' },
      sandbox: false,
      sandboxUrls: new Map(),
    });
    const route = store.current().models.get('anthropic/claude-sonnet-5')!.routes[0]!;
    expect(route.upstreamModel).to.equal('claude-sonnet-5');
    expect(route.provider.credential()).to.equal('sk-ant-x');
    expect(JSON.stringify(route)).to.not.include('sk-ant-x');
    expect(store.current().models.get('sandbox/claude-sonnet')!.routes).to.have.length(0);
  });

  it('creates exactly one version when several loads sync the same new price at once (a connection each on PostgreSQL)', async function () {
    const db = await getTestDatabase();
    const parsed = parseCatalogue(sample, 'sample');
    if (!parsed.ok) throw new Error('sample invalid');
    const results = await Promise.all(Array.from({ length: usingPostgres() ? 8 : 3 }, () => syncPriceVersions(db, parsed.catalogue)));
    const created = results.flatMap((r) => r.created);
    expect(created.filter((c) => c.model === 'sandbox/claude-sonnet')).to.have.length(1);
    const rows = await db('price_versions').where({ model_id: 'sandbox/claude-sonnet' });
    expect(rows).to.have.length(1);
  });
});
