import { expect } from 'chai';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.ts';
import { getTestDatabase, testDatabaseUrlInUse, usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// The operators' side of price plans (issue 37, items 1 and 5): plans and customers' pricing
// changed through the admin API without a restart, every change audited (who, when, old and new),
// prices that cannot be charged refused with the reason, and a change reaching every gateway on
// the database within a second.
describe(`price plans through the admin API (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway?.close());

  const invalid = async (body: unknown, method = 'POST', pathname = '/admin/v1/plans') => {
    const answer = await gateway.admin(method, pathname, body);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(400);
    expect(answer.body.error.code).to.equal('invalid_pricing');
    return answer.body.error.message as string;
  };

  it('creates, changes and deletes a plan, each change audited with who made it and what it was before and after', async () => {
    const created = await gateway.admin('POST', '/admin/v1/plans', { name: 'Audited', description: 'for the audit', multiplier: '0.90', actor: 'alice' });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ name: 'Audited', multiplier: '0.900000', version: 1, customers: 0 });
    const id = created.body.id;
    const renamed = await gateway.admin('PATCH', `/admin/v1/plans/${id}`, {
      name: 'Audited (renamed)',
      overrides: [{ model: 'sandbox/chat-model', multiplier: '2' }],
      actor: 'bob',
    });
    expect(renamed.body).to.include({ name: 'Audited (renamed)', version: 2 });
    expect(renamed.body.overrides).to.deep.equal([{ model: 'sandbox/chat-model', multiplier: '2.000000' }]);
    const customer = await gateway.customerWithKey();
    const assigned = await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/pricing`, { plan_id: id, actor: 'carol' });
    expect(assigned.body).to.deep.equal({
      object: 'customer_pricing',
      customer_id: customer.customerId,
      plan: { id, name: 'Audited (renamed)', version: 2 },
      overrides: [],
    });
    expect((await gateway.admin('GET', `/admin/v1/plans/${id}`)).body.customers).to.equal(1);
    const inUse = await gateway.admin('DELETE', `/admin/v1/plans/${id}`);
    expect(inUse.status).to.equal(409);
    expect(inUse.body.error.code).to.equal('plan_in_use');
    await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/pricing`, { plan_id: null, actor: 'carol' });
    const deleted = await gateway.admin('DELETE', `/admin/v1/plans/${id}?actor=dave`);
    expect(deleted.status).to.equal(200);
    expect((await gateway.admin('GET', `/admin/v1/plans/${id}`)).status).to.equal(404);

    const audit = (await gateway.admin('GET', `/admin/v1/pricing-audit?subject_id=${id}`)).body;
    expect(audit.data.map((e: any) => [e.action, e.actor])).to.deep.equal([
      ['deleted', 'dave'],
      ['updated', 'bob'],
      ['created', 'alice'],
    ]);
    expect(audit.data[1].old).to.include({ name: 'Audited', multiplier: '0.900000', version: 1 });
    expect(audit.data[1].new).to.include({ name: 'Audited (renamed)', version: 2 });
    expect(audit.data[0].new).to.equal(null);
    const customerAudit = (await gateway.admin('GET', `/admin/v1/pricing-audit?subject_id=${customer.customerId}&limit=1`)).body;
    expect(customerAudit).to.include({ has_more: true });
    expect(customerAudit.data[0]).to.deep.include({
      subject_type: 'customer',
      actor: 'carol',
      old: { plan_id: id, overrides: [] },
      new: { plan_id: null, overrides: [] },
    });
    const older = (await gateway.admin('GET', `/admin/v1/pricing-audit?subject_id=${customer.customerId}&before=${customerAudit.next_before}`)).body;
    expect(older.data.map((e: any) => e.new.plan_id)).to.deep.equal([id]);
  });

  it('refuses prices that cannot be charged, saying which model and why', async () => {
    expect(await invalid({ name: 'X', overrides: [{ model: 'sandbox/no-such-model', multiplier: '2' }] })).to.include('no model with this id');
    expect(await invalid({ name: 'X', overrides: [{ model: 'sandbox/seedance', price: { input_per_mtok: '1.00' } }] })).to.include('is a video model');
    expect(await invalid({ name: 'X', overrides: [{ model: 'sandbox/claude-haiku', price: { per_second: { '720p': '1.00' } } }] })).to.include(
      'priced per token',
    );
    expect(await invalid({ name: 'X', overrides: [{ model: 'sandbox/seedance', price: { per_second: { '4k': '1.00' } } }] })).to.include('has no tier 4k');
    expect(await invalid({ name: 'X', overrides: [{ model: 'sandbox/chat-model', multiplier: '2', price: { input_per_mtok: '1' } }] })).to.include(
      'either price or multiplier',
    );
    expect(
      await invalid({
        name: 'X',
        overrides: [
          { model: 'sandbox/a*', multiplier: '2' },
          { model: 'sandbox/*a', multiplier: '3' },
        ],
      }),
    ).to.include('equal specificity');
    // A tier the model's context window never reaches (haiku: 200,000).
    expect(
      await invalid({
        name: 'X',
        overrides: [{ model: 'sandbox/claude-haiku', price: { tiers: [{ above_input_tokens: 300000, input_per_mtok: '2', output_per_mtok: '10' }] } }],
      }),
    ).to.include('not below the context window');
    expect(await invalid({ name: 'X', multiplier: '0' })).to.include('above 0');
    const customer = await gateway.customerWithKey();
    expect(
      await invalid({ overrides: [{ model: 'sandbox/claude-*', multiplier: '0.5' }] }, 'PATCH', `/admin/v1/customers/${customer.customerId}/pricing`),
    ).to.include('by its id');
    // Schema failures are plain 400s naming the field.
    const unknownField = await gateway.admin('POST', '/admin/v1/plans', { name: 'X', overrides: [{ model: 'sandbox/chat-model', multiplier: '2', extra: 1 }] });
    expect(unknownField.status).to.equal(400);

    const first = await gateway.admin('POST', '/admin/v1/plans', { name: 'Unique' });
    expect(first.status).to.equal(201);
    const again = await gateway.admin('POST', '/admin/v1/plans', { name: 'Unique' });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('plan_name_taken');
    expect((await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/pricing`, { plan_id: 'plan_doesnotexist' })).body.error.code).to.equal(
      'plan_not_found',
    );
    expect((await gateway.admin('GET', '/admin/v1/customers/cus_doesnotexist/pricing')).status).to.equal(404);
    expect((await gateway.admin('PATCH', '/admin/v1/plans/plan_doesnotexist', { name: 'Y' })).status).to.equal(404);
  });

  it('lists what a plan or a customer pays for each model beside each route’s upstream cost', async () => {
    const plan = (
      await gateway.admin('POST', '/admin/v1/plans', { name: 'Preview', overrides: [{ model: 'sandbox/seedance', price: { per_second: { '720p': '0.08' } } }] })
    ).body;
    const prices = (await gateway.admin('GET', `/admin/v1/prices?plan_id=${plan.id}`)).body;
    const seedance = prices.data.find((m: any) => m.model === 'sandbox/seedance');
    expect(seedance.price_rule).to.deep.equal({ rule: 'plan_model', plan: { name: 'Preview', version: 1 }, pattern: null, multiplier: null });
    expect(seedance.price.per_second['720p']).to.equal('0.080000');
    expect(seedance.routes).to.deep.equal([
      {
        provider: 'sandbox-ark',
        upstream_model: 'doubao-seedance-1-5-pro-251215',
        priority: 1,
        cost: {
          type: 'video_seconds',
          per_second: { '480p': '0.030000', '720p': '0.060000', '1080p': '0.150000' },
          seconds: [5, 10],
          billed_seconds_rule: seedance.price.billed_seconds_rule,
        },
      },
    ]);
    const chat = prices.data.find((m: any) => m.model === 'sandbox/chat-model');
    expect(chat.price_rule.rule).to.equal('list');
    expect(chat.routes.map((r: any) => r.cost && r.cost.input_per_mtok)).to.deep.equal(['0.300000', null]);
    const customer = await gateway.customerWithKey();
    await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/pricing`, { overrides: [{ model: 'sandbox/chat-model', multiplier: '3' }] });
    const own = (await gateway.admin('GET', `/admin/v1/prices?customer_id=${customer.customerId}`)).body.data.find(
      (m: any) => m.model === 'sandbox/chat-model',
    );
    expect(own.price_rule.rule).to.equal('customer_override');
    expect(own.price.input_per_mtok).to.equal('1.500000');
    expect((await gateway.admin('GET', '/admin/v1/prices?plan_id=plan_doesnotexist')).status).to.equal(404);
  });
});

// A plan changed through one gateway prices the next request on another at once: within a second
// on PostgreSQL (the change's notification), though plans are remembered for 30 s there.
describe(`a plan change reaches every gateway on the database within a second (${usingPostgres() ? 'PostgreSQL, two processes' : 'PGlite, one process'})`, function () {
  this.timeout(120_000);
  const children: ChildGateway[] = [];
  let embedded: TestGateway | undefined;
  type Surface = { url: string; admin(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> };
  let serving: Surface;
  let changing: Surface;

  before(async () => {
    const remember = { KEY_CACHE_MS: '30000', KEY_WARM_MS: '0' };
    if (usingPostgres()) {
      await getTestDatabase();
      for (let i = 0; i < 2; i++) children.push(await startChildGateway({ env: { DATABASE_URL: testDatabaseUrlInUse(), ...remember } }));
      [serving, changing] = children as [ChildGateway, ChildGateway];
    } else {
      embedded = await startTestGateway({ env: remember });
      serving = changing = embedded;
    }
  });
  after(async () => {
    for (const child of children) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
    await embedded?.close();
  });

  it('moves the price of the next request on the other gateway', async () => {
    const plan = (await changing.admin('POST', '/admin/v1/plans', { name: `Replicated ${Date.now()}`, multiplier: '2' })).body;
    const customer = (await changing.admin('POST', '/admin/v1/customers', { name: 'Replicas' })).body;
    const key = (await changing.admin('POST', `/admin/v1/customers/${customer.id}/api-keys`, {})).body.key;
    await changing.admin('PATCH', `/admin/v1/customers/${customer.id}/pricing`, { plan_id: plan.id });
    const chatPrice = async () => {
      const list = (await (await fetch(`${serving.url}/v1/models/pricing`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
      return list.data.find((m: any) => m.model === 'sandbox/chat-model').price.input_per_mtok as string;
    };
    const within = async (expected: string) => {
      const deadline = Date.now() + 1_000;
      for (;;) {
        const price = await chatPrice();
        if (price === expected) return;
        if (Date.now() > deadline) throw new Error(`still ${price} after 1 s (expected ${expected})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await within('1.000000'); // the serving gateway now remembers the customer and its plan
    expect((await changing.admin('PATCH', `/admin/v1/plans/${plan.id}`, { multiplier: '3' })).status).to.equal(200);
    await within('1.500000');
    expect((await changing.admin('PATCH', `/admin/v1/customers/${customer.id}/pricing`, { plan_id: null })).status).to.equal(200);
    await within('0.500000');
  });
});
