import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// Price plans (issue 37, items 1 and 2): what each customer pays follows its plan, by one written
// precedence (its own override, the plan's exact model, its most specific pattern, its multiplier,
// the list price) at quote, hold, settle and in the price list; a plan's price is frozen as a price
// version at the hold, so a change later never alters work in flight (a video task, a background
// response). sandbox/claude-haiku lists at 1.00 / 5.00 / 0.10 (reads) / 1.25 (writes).
const HAIKU = 'sandbox/claude-haiku';

type Usage = { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };

/** "0.5" -> 500000n. */
const micros = (decimal: string) => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole! + fraction.padEnd(6, '0'));
};
/** Micro-units of [units, price per million as a decimal] lines, rounded up once. */
const priced = (...lines: Array<[number, string]>): bigint => {
  const numerator = lines.reduce((sum, [units, price]) => sum + BigInt(units) * micros(price), 0n);
  return (numerator + 999_999n) / 1_000_000n;
};
/** What usage costs at {input, output, read, write} prices. */
const tokensAt = (usage: Usage, p: { input: string; output: string; read: string; write: string }) =>
  priced(
    [usage.input_tokens, p.input],
    [usage.cache_creation_input_tokens ?? 0, p.write],
    [usage.cache_read_input_tokens ?? 0, p.read],
    [usage.output_tokens, p.output],
  );
const LIST = { input: '1.00', output: '5.00', read: '0.10', write: '1.25' };
const PARTNER_HAIKU = { input: '0.50', output: '2.00', read: '0.05', write: '0.60' };
const PREMIUM_HAIKU = { input: '1.50', output: '7.50', read: '0.15', write: '1.875' }; // x1.5

describe(`price plans: each customer pays its plan's prices, frozen at the hold (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let partner: any;
  let premium: any;

  before(async () => {
    // Exact charges: the sample's free seconds of sandbox/seedance left out.
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith({ withoutFreeQuota: ['sandbox/seedance'] }) });
    partner = (
      await gateway.admin('POST', '/admin/v1/plans', {
        name: 'Partner',
        multiplier: '0.8',
        overrides: [
          { model: HAIKU, price: { input_per_mtok: '0.50', output_per_mtok: '2.00', cache_read_per_mtok: '0.05', cache_write_per_mtok: '0.60' } },
          { model: 'sandbox/claude-*', multiplier: '0.9' },
          { model: 'sandbox/claude-o*', multiplier: '0.7' },
          { model: 'sandbox/seedance', price: { per_second: { '720p': '0.08' } } },
        ],
        actor: 'ops@example.com',
      })
    ).body;
    premium = (await gateway.admin('POST', '/admin/v1/plans', { name: 'Premium', multiplier: '1.5' })).body;
    expect(partner).to.include({ object: 'price_plan', name: 'Partner', multiplier: '0.800000', version: 1, customers: 0 });
  });
  // Every wallet is its journal, and every charge is its usage priced again at the version it was
  // frozen at (a plan's, a customer's own or the list's): priced = charge + debt + free + waived.
  afterEach(async () => {
    await gateway.settled();
    const check = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    expect(check.mismatches).to.deep.equal([]);
    expect(check.priced.differences).to.deep.equal([]);
    expect(check.priced.legacy).to.equal(0);
    expect(check.priced.checked).to.be.above(0);
    expect(check.ok).to.equal(true);
  });
  after(async () => gateway?.close());

  const customerOn = async (plan: { id: string } | null, overrides?: unknown[]) => {
    const customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '20.00', reference: `fund-${customer.customerId}` });
    const set = await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/pricing`, {
      plan_id: plan?.id ?? null,
      ...(overrides ? { overrides } : {}),
      actor: 'ops@example.com',
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    return customer;
  };
  const post = async (key: string, pathname: string, body: unknown) => {
    const response = await fetch(gateway.url + pathname, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any, requestId: response.headers.get('request-id')! };
  };
  const get = async (key: string, pathname: string) => {
    const response = await fetch(gateway.url + pathname, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };
  const receipt = async (key: string, requestId: string) => {
    await gateway.requestLog(requestId); // written once the charge is durable
    return (await get(key, `/v1/requests/${requestId}`)).body;
  };
  const debits = async (customerId: string) => micros((await gateway.wallet(customerId)).debits);

  it('two customers on different plans are charged different exact amounts for the same request, at hold and at settle', async () => {
    const a = await customerOn(partner);
    const b = await customerOn(premium);
    const c = await customerOn(null);
    const body = { model: HAIKU, max_tokens: 300, messages: [{ role: 'user', content: 'Same question [[sim cache_write=40 cache_read=900]]' }] };
    const results = [];
    for (const [who, prices, rule] of [
      [a, PARTNER_HAIKU, { rule: 'plan_model', plan: { name: 'Partner', version: 1 }, pattern: null, multiplier: null }],
      [b, PREMIUM_HAIKU, { rule: 'plan_multiplier', plan: { name: 'Premium', version: 1 }, pattern: null, multiplier: '1.500000' }],
      [c, LIST, { rule: 'list', plan: null, pattern: null, multiplier: null }],
    ] as const) {
      const quote = await post(who.key, '/v1/messages', { ...body, dry_run: true });
      expect(quote.status).to.equal(200);
      expect(quote.body.price_rule).to.deep.equal(rule);
      // The bound: the input estimate at the dearest input rate (cache writes here), all output.
      expect(micros(quote.body.hold)).to.equal(priced([quote.body.input_tokens, prices.write], [300, prices.output]));
      const before = await debits(who.customerId);
      const sent = await post(who.key, '/v1/messages', body);
      expect(sent.status).to.equal(200);
      const charged = tokensAt(sent.body.usage, prices);
      expect((await debits(who.customerId)) - before).to.equal(charged);
      const r = await receipt(who.key, sent.requestId);
      expect(r.hold.amount).to.equal(quote.body.hold);
      expect(micros(r.charge.total)).to.equal(charged);
      expect(r.price.rule).to.deep.equal(rule);
      expect(r.price.version).to.equal(quote.body.price_version);
      results.push({ hold: quote.body.hold, charged });
    }
    expect(new Set(results.map((r) => r.hold)).size).to.equal(3);
    expect(new Set(results.map((r) => r.charged)).size).to.equal(3);
  });

  it('one precedence everywhere: the customer override, the exact model, the most specific pattern, the multiplier, the list price', async () => {
    const d = await customerOn(partner, [{ model: 'sandbox/chat-model', multiplier: '0.5' }]);
    const list = (await get(d.key, '/v1/models/pricing')).body.data as any[];
    const of = (model: string) => list.find((m) => m.model === model);
    expect(of('sandbox/chat-model').price_rule).to.deep.equal({ rule: 'customer_override', plan: null, pattern: null, multiplier: '0.500000' });
    expect(of('sandbox/chat-model').price).to.include({ input_per_mtok: '0.250000', output_per_mtok: '0.750000', cache_read_per_mtok: '0.125000' });
    expect(of(HAIKU).price_rule.rule).to.equal('plan_model');
    expect(of(HAIKU).price).to.include({ input_per_mtok: '0.500000', output_per_mtok: '2.000000' });
    // sandbox/claude-o* is more specific than sandbox/claude-*: opus at 0.7, sonnet at 0.9, tiers too.
    expect(of('sandbox/claude-opus').price_rule).to.deep.include({ rule: 'plan_pattern', pattern: 'sandbox/claude-o*', multiplier: '0.700000' });
    expect(of('sandbox/claude-opus').price).to.include({ input_per_mtok: '2.800000', output_per_mtok: '14.000000' });
    expect(of('sandbox/claude-opus').price.tiers[0]).to.include({ input_per_mtok: '5.600000', output_per_mtok: '21.000000' });
    expect(of('sandbox/claude-sonnet').price_rule).to.deep.include({ rule: 'plan_pattern', pattern: 'sandbox/claude-*' });
    expect(of('sandbox/claude-sonnet').price).to.include({ input_per_mtok: '2.700000', output_per_mtok: '13.500000' });
    // A partial video price: 720p overridden, the other tiers at the list price.
    expect(of('sandbox/seedance').price.per_second).to.deep.equal({ '480p': '0.050000', '720p': '0.080000', '1080p': '0.250000' });
    expect(of('sandbox/responses-model').price_rule).to.deep.include({ rule: 'plan_multiplier', multiplier: '0.800000' });
    expect(of('sandbox/responses-model').price).to.include({ input_per_mtok: '1.000000', output_per_mtok: '8.000000', cache_read_per_mtok: '0.100000' });
    // Everyone else (and anonymous callers) sees the list.
    const anonymous = ((await (await fetch(`${gateway.url}/v1/models/pricing`)).json()) as any).data as any[];
    expect(anonymous.find((m) => m.model === HAIKU).price).to.include({ input_per_mtok: '1.000000' });
    expect(anonymous.find((m) => m.model === HAIKU).price_rule.rule).to.equal('list');

    // The chat request is charged at the customer's own price.
    const before = await debits(d.customerId);
    const sent = await post(d.key, '/v1/chat/completions', { model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(sent.status).to.equal(200);
    const usage = sent.body.usage;
    expect((await debits(d.customerId)) - before).to.equal(priced([usage.prompt_tokens, '0.25'], [usage.completion_tokens, '0.75']));
    expect((await receipt(d.key, sent.requestId)).price.rule.rule).to.equal('customer_override');
  });

  it('a video task keeps the price it was accepted at when its plan changes before it finishes', async () => {
    const a = await customerOn(partner);
    const videos = videoCalls(gateway, a.key);
    const request = { model: 'sandbox/seedance', prompt: 'A calico cat [[sim queued_ms=0 running_ms=0]]', seconds: 5, size: '1280x720' };
    const before = await debits(a.customerId);
    const accepted = await videos.create(request);
    expect(accepted.status).to.equal(202);
    expect((await gateway.wallet(a.customerId)).reserved).to.equal('0.400000'); // 5 s at the plan's 0.08
    const changed = await gateway.admin('PATCH', `/admin/v1/plans/${partner.id}`, {
      overrides: [
        ...partner.overrides.filter((o: any) => o.model !== 'sandbox/seedance'),
        { model: 'sandbox/seedance', price: { per_second: { '720p': '0.12' } } },
      ],
      actor: 'ops@example.com',
    });
    expect(changed.body).to.include({ version: 2 });
    partner = changed.body;
    const quote = await post(a.key, '/v1/videos', { ...request, dry_run: true });
    expect(quote.body).to.include({ per_second: '0.120000', hold: '0.600000' }); // new work: the new price
    const done = await videos.finish(accepted.body.task_id);
    expect(done.status).to.equal('completed');
    expect((await debits(a.customerId)) - before).to.equal(micros('0.400000')); // the old one, settled
    const r = await receipt(a.key, accepted.body.task_id);
    expect(r.price.rule).to.deep.equal({ rule: 'plan_model', plan: { name: 'Partner', version: 1 }, pattern: null, multiplier: null });
    expect(r.price.unit_prices.per_second['720p']).to.equal('0.080000');
    expect(r.price.version).to.be.below(quote.body.price_version);
  });

  it('a background response keeps the price it was accepted at when its customer moves to another plan', async () => {
    const a = await customerOn(partner);
    const before = await debits(a.customerId);
    const created = await post(a.key, '/v1/responses', {
      model: 'sandbox/responses-model',
      input: 'An essay [[sim queued_ms=100 running_ms=100]]',
      background: true,
    });
    expect(created.status).to.equal(200);
    const moved = await gateway.admin('PATCH', `/admin/v1/customers/${a.customerId}/pricing`, { plan_id: premium.id });
    expect(moved.body.plan).to.include({ name: 'Premium' });
    for (let i = 0; ; i++) {
      await gateway
        .db('video_tasks')
        .where({ upstream_task_id: created.body.id })
        .update({ next_poll_at: new Date(0) });
      await gateway.services.videoWorker.processBatch();
      const task = await gateway.db('video_tasks').where({ upstream_task_id: created.body.id }).first();
      if (task.status === 'completed') break;
      if (i > 100) throw new Error('the background response never finished');
      await new Promise((r) => setTimeout(r, 50));
    }
    const primary = gateway.simulators.get('sandbox-openai-responses') as any;
    const usage = primary.responses.get(created.body.id)!.final.usage as any;
    const cached = usage.input_tokens_details?.cached_tokens ?? 0;
    // Partner's multiplier at acceptance (0.8): 1.00 input, 0.10 cached, 8.00 output; not Premium's 1.5.
    const charged = priced([usage.input_tokens - cached, '1.00'], [cached, '0.10'], [usage.output_tokens, '8.00']);
    expect((await debits(a.customerId)) - before).to.equal(charged);
    const task = await gateway.db('video_tasks').where({ upstream_task_id: created.body.id }).first();
    const r = await receipt(a.key, task.id);
    expect(r.price.rule).to.deep.include({ rule: 'plan_multiplier', plan: { name: 'Partner', version: partner.version } });
    // A request after the move pays Premium's.
    const quote = await post(a.key, '/v1/responses', { model: 'sandbox/responses-model', input: 'Next', dry_run: true });
    expect(quote.body.price_rule).to.deep.include({ rule: 'plan_multiplier', multiplier: '1.500000' });
  });
});
