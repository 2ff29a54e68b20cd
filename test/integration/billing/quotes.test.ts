import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { expectVideoUpstreamsOnContract, videoCalls } from '../../helpers/videos.ts';

// Quotes and prices a downstream can price itself by (issue 28): POST /v1/videos with dry_run
// answers the hold a create would take, exactly, and GET /v1/models/pricing the prices of the key.
describe(`quotes: POST /v1/videos dry_run and the key's price list (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let customer: { customerId: string; keyId: string; key: string };

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith() }); // a copy: the price change below rewrites it
    customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '20.00', reference: 'fund' });
  });
  after(async () => {
    expectVideoUpstreamsOnContract(gateway);
    await gateway?.close();
  });

  /** Everything a quote must leave alone. */
  const state = async () => ({
    tasks: (await gateway.db('video_tasks').count<{ n: bigint }[]>('* as n'))[0]!.n,
    reservations: (await gateway.db('reservations').count<{ n: bigint }[]>('* as n'))[0]!.n,
    entries: (await gateway.db('ledger_entries').count<{ n: bigint }[]>('* as n'))[0]!.n,
    free: await gateway.db('free_quota_usage').select('used', 'held'),
    wallet: await gateway.wallet(customer.customerId),
    upstream: [...gateway.simulators.values()].reduce((n, s) => n + ((s as { exchanges?: unknown[] }).exchanges?.length ?? 0), 0),
  });

  /** Quote, then create the same body: the create's reservation is what the quote said. */
  async function quoteThenCreate(body: Record<string, unknown>) {
    const videos = videoCalls(gateway, customer.key);
    const before = await state();
    const quote = await videos.create({ ...body, dry_run: true });
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    expect(await state()).to.deep.equal(before); // nothing created, held, charged or sent
    const created = await videos.create(body);
    expect(created.status).to.equal(202);
    const reservation = await gateway.db('reservations').where({ ref: created.body.task_id }).first();
    const task = await gateway.db('video_tasks').where({ id: created.body.task_id }).first();
    const version = await gateway.db('price_versions').where({ id: task.price_version_id }).first();
    expect(reservation.amount.toString()).to.equal(quote.body.hold.replace('.', '').replace(/^0+(?=\d)/, ''));
    expect(Number(reservation.free_units_held)).to.equal(quote.body.free_units);
    expect(version.version).to.equal(quote.body.price_version);
    expect(task.request.resolution).to.equal(quote.body.resolution);
    expect(task.request.seconds).to.equal(quote.body.seconds);
    return { quote: quote.body, taskId: created.body.task_id as string };
  }

  it('quotes the exact hold a create takes: free seconds first, then money, at the tier of the size', async () => {
    // 10 free seconds a day on seedance: 5 taken by the first task, 5 left for the second.
    const first = await quoteThenCreate({ model: 'sandbox/seedance', prompt: 'a cat', seconds: 5, resolution: '720p' });
    expect(first.quote).to.deep.include({ object: 'video.quote', model: 'sandbox/seedance', price_version: 1, currency: 'USD', seconds: 5 });
    expect(first.quote).to.deep.include({
      resolution: '720p',
      per_second: '0.100000',
      cost: '0.500000',
      free_units: 5,
      free_unit: 'seconds',
      hold: '0.000000',
    });
    expect(first.quote.billed_seconds_rule).to.match(/nearest whole second \(halves up, at least one\)/);
    const second = await quoteThenCreate({ model: 'sandbox/seedance', prompt: 'a dog', seconds: 10, size: '1920x1080' });
    expect(second.quote).to.deep.include({ resolution: '1080p', ratio: '16:9', size: '1920x1080', cost: '2.500000', free_units: 5, hold: '1.250000' });
    const third = await quoteThenCreate({ model: 'sandbox/compatible-video', prompt: 'a bird', seconds: 8, size: '1792x1024' });
    expect(third.quote).to.deep.include({ resolution: '1024p', per_second: '0.300000', free_units: 0, free_unit: null, hold: '2.400000' });
  });

  it('quotes a new price version as soon as the catalogue changes, and the create takes that version', async () => {
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { model: { 'sandbox/compatible-video': { price: { per_second: { '720p': '0.15', '1024p': '0.30' } } } } }),
    );
    expect(reload.status).to.equal(200);
    const { quote } = await quoteThenCreate({ model: 'sandbox/compatible-video', prompt: 'a fox', seconds: 4, size: '1280x720' });
    expect(quote).to.deep.include({ price_version: 2, per_second: '0.150000', hold: '0.600000' });
  });

  it('refuses what a create refuses, with the same answer; a multipart quote (as the OpenAI SDK sends) works too', async () => {
    const videos = videoCalls(gateway, customer.key);
    for (const body of [
      { model: 'sandbox/seedance', prompt: 'x', seconds: 7 },
      { model: 'sandbox/seedance', prompt: 'x', size: '1x1' },
      { model: 'nobody/nothing', prompt: 'x' },
      { model: 'sandbox/chat-model', prompt: 'x' },
    ]) {
      const quoted = await videos.create({ ...body, dry_run: true });
      const created = await videos.create(body);
      expect(quoted.status, JSON.stringify(body)).to.equal(created.status);
      expect(quoted.body).to.deep.equal(created.body);
    }
    const form = await videos.createForm([
      ['model', 'sandbox/compatible-video'],
      ['prompt', 'a cat'],
      ['seconds', '4'],
      ['size', '720x1280'],
      ['dry_run', 'true'],
    ]);
    expect(form.status).to.equal(200);
    expect(form.body).to.deep.include({ object: 'video.quote', resolution: '720p', ratio: '9:16', hold: '0.600000' });
    const notDry = await videos.create({ model: 'sandbox/compatible-video', prompt: 'a cat', seconds: 4, size: '1280x720', dry_run: false });
    expect(notDry.status).to.equal(202);
  });

  it('states the prices of the calling key: the models it may reach, every unit price, the video seconds and rule', async () => {
    const pricing = async (key?: string) =>
      (await (await fetch(`${gateway.url}/v1/models/pricing`, { headers: key ? { authorization: `Bearer ${key}` } : {} })).json()) as any;
    const all = await pricing(customer.key);
    const haiku = all.data.find((m: any) => m.model === 'sandbox/claude-haiku');
    expect(haiku.price).to.deep.equal({
      type: 'tokens',
      input_per_mtok: '1.000000',
      output_per_mtok: '5.000000',
      cache_read_per_mtok: '0.100000',
      cache_write_per_mtok: '1.250000',
      cache_write_1h_per_mtok: null,
      web_search_per_1k_requests: null,
      web_fetch_per_1k_requests: null,
      multipliers: {},
      tiers: [],
    });
    const seedance = all.data.find((m: any) => m.model === 'sandbox/seedance');
    expect(seedance.price).to.deep.include({ type: 'video_seconds', seconds: [5, 10] });
    expect(seedance.price.billed_seconds_rule).to.match(/nearest whole second/);
    const compatible = all.data.find((m: any) => m.model === 'sandbox/compatible-video');
    expect(compatible).to.deep.include({ price_version: 2 });
    expect(compatible.price.per_second['720p']).to.equal('0.150000');
    // A key limited to two models is priced for those two only.
    const narrow = await gateway.customerWithKey({ allowedModels: ['sandbox/claude-haiku', 'sandbox/seedance'] });
    const limited = await pricing(narrow.key);
    expect(limited.data.map((m: any) => m.model).sort()).to.deep.equal(['sandbox/claude-haiku', 'sandbox/seedance']);
    expect((await pricing()).data.map((m: any) => m.model)).to.include('sandbox/h3'); // anonymous: every public model
  });
});
