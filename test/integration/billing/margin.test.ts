import { expect } from 'chai';
import type { OpenAIChatSimulator } from '../../../src/sandbox/openai-chat/server.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// The upstream cost beside each charge (issue 37, item 3): every charging journal entry records what
// its delivered usage cost the operator at the serving route's `cost` (the sample prices
// sandbox/claude-haiku's route at 0.60 / 3.00 / 0.06 / 0.75, sandbox/seedance's at 0.06 a 720p second,
// sandbox/chat-model's primary route at 0.30 / 0.90, and gives sandbox/claude-sonnet and the chat
// backup route no cost). The margin report is the journal's sum of (charge - cost), to the
// micro-unit, with revenue whose route had no cost reported apart; customers never see a cost.

/** "0.5" -> 500000n; null stays null. */
const micros = (decimal: string | null) => {
  if (decimal === null) return null;
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const value = BigInt(whole! + fraction.padEnd(6, '0'));
  return negative ? -value : value;
};
const priced = (...lines: Array<[number, string]>): bigint =>
  (lines.reduce((sum, [units, price]) => sum + BigInt(units) * micros(price)!, 0n) + 999_999n) / 1_000_000n;

describe(`upstream cost and the margin report (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let a: { customerId: string; keyId: string; key: string };
  let b: { customerId: string; keyId: string; key: string };
  let start: string;
  const requests: Record<string, string> = {};

  const post = async (key: string, pathname: string, body: unknown) => {
    const response = await fetch(gateway.url + pathname, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.text();
    return { status: response.status, body: answer.startsWith('{') ? JSON.parse(answer) : answer, requestId: response.headers.get('request-id')! };
  };
  const text = async (key: string, pathname: string) => (await fetch(gateway.url + pathname, { headers: { authorization: `Bearer ${key}` } })).text();

  before(async () => {
    gateway = await startTestGateway();
    start = new Date(Date.now() - 1000).toISOString();
    a = await gateway.customerWithKey();
    b = await gateway.customerWithKey();
    for (const c of [a, b]) await gateway.admin('POST', `/admin/v1/customers/${c.customerId}/credits`, { amount: '30.00', reference: `fund-${c.customerId}` });
    const plan = (await gateway.admin('POST', '/admin/v1/plans', { name: 'Reseller', multiplier: '1.2' })).body;
    await gateway.admin('PATCH', `/admin/v1/customers/${b.customerId}/pricing`, { plan_id: plan.id });

    for (const [c, i] of [
      [a, 0],
      [b, 1],
    ] as const) {
      const haiku = {
        model: 'sandbox/claude-haiku',
        max_tokens: 200,
        stream: i === 1,
        messages: [{ role: 'user', content: `Hi ${i} [[sim cache_write=30 cache_read=500]]` }],
      };
      requests[`haiku-${i}`] = (await post(c.key, '/v1/messages', haiku)).requestId;
      // sonnet's route has no cost (and its free tokens pay part of the first charge).
      requests[`sonnet-${i}`] = (
        await post(c.key, '/v1/messages', { model: 'sandbox/claude-sonnet', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
      ).requestId;
      requests[`chat-${i}`] = (
        await post(c.key, '/v1/chat/completions', { model: 'sandbox/chat-model', messages: [{ role: 'user', content: `Hi ${i}` }] })
      ).requestId;
    }
    // One chat answer from the backup route, which has no cost.
    (gateway.simulators.get('sandbox-openai-chat') as OpenAIChatSimulator).next({ error: 500 });
    requests['chat-backup'] = (
      await post(a.key, '/v1/chat/completions', { model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'Backup' }] })
    ).requestId;
    const videos = videoCalls(gateway, b.key);
    const task = await videos.create({ model: 'sandbox/seedance', prompt: 'A cat [[sim queued_ms=0 running_ms=0]]', seconds: 5, size: '1280x720' });
    expect(task.status).to.equal(202);
    expect((await videos.finish(task.body.task_id)).status).to.equal('completed');
    requests.video = task.body.task_id;
    await gateway.settled();
    for (const id of Object.values(requests)) if (!id.startsWith('vt_')) await gateway.requestLog(id);
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

  it('records each charge’s upstream cost at its route’s cost, with the route, for the operator', async () => {
    const haiku = (await gateway.admin('GET', `/admin/v1/receipts/${requests['haiku-0']}`)).body;
    const billed = haiku.usage.billed;
    const cost = priced([billed.input_tokens, '0.60'], [billed.cache_write_tokens, '0.75'], [billed.cache_read_tokens, '0.06'], [billed.output_tokens, '3.00']);
    expect(haiku.upstream_cost).to.deep.equal({ amount: formatted(cost), provider: 'sandbox-anthropic', upstream_model: 'claude-haiku-4-5-20251001' });
    // Streamed, on a plan: the cost is the route's whatever the customer pays.
    const streamed = (await gateway.admin('GET', `/admin/v1/receipts/${requests['haiku-1']}`)).body;
    const s = streamed.usage.billed;
    expect(micros(streamed.upstream_cost.amount)).to.equal(
      priced([s.input_tokens, '0.60'], [s.cache_write_tokens, '0.75'], [s.cache_read_tokens, '0.06'], [s.output_tokens, '3.00']),
    );
    expect((await gateway.admin('GET', `/admin/v1/receipts/${requests['sonnet-0']}`)).body.upstream_cost).to.deep.include({ amount: null });
    expect((await gateway.admin('GET', `/admin/v1/receipts/${requests['chat-backup']}`)).body.upstream_cost).to.deep.equal({
      amount: null,
      provider: 'sandbox-openai-chat-backup',
      upstream_model: 'sandbox-chat',
    });
    const video = (await gateway.admin('GET', `/admin/v1/receipts/${requests.video}`)).body;
    expect(video.upstream_cost).to.deep.include({ amount: formatted(BigInt(video.usage.billed.billed_seconds) * micros('0.06')!), provider: 'sandbox-ark' });
  });

  it('reports revenue, cost and margin by customer and model that equal the journal’s sum of (charge - cost) to the micro-unit', async () => {
    // Without `to` the report ends at the watermark (as exports do): every entry before it is in.
    const answer = await gateway.admin('GET', `/admin/v1/usage/margin?from=${start}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const report = answer.body;
    const to = report.to;
    const entries = await gateway
      .db('ledger_entries')
      .whereIn('kind', ['settle', 'charge', 'true_up'])
      .where('posted_at', '>=', start)
      .where('posted_at', '<', to);
    const rows = new Map<string, { revenue: bigint; withoutCost: bigint; cost: bigint | null; refs: Set<string> }>();
    for (const e of entries) {
      const key = `${e.customer_id} ${e.purpose.model}`;
      const row = rows.get(key) ?? { revenue: 0n, withoutCost: 0n, cost: null, refs: new Set<string>() };
      const revenue = BigInt(e.amount) + BigInt(e.debt_delta);
      const cost = e.purpose.upstream_cost?.amount ?? null;
      row.revenue += revenue;
      if (cost === null) row.withoutCost += revenue;
      else row.cost = (row.cost ?? 0n) + BigInt(cost);
      row.refs.add(e.reference.slice(e.reference.indexOf(':') + 1));
      rows.set(key, row);
    }
    expect(report.data.map((r: any) => `${r.customer_id} ${r.model}`).sort()).to.deep.equal([...rows.keys()].sort());
    for (const r of report.data) {
      const expected = rows.get(`${r.customer_id} ${r.model}`)!;
      expect(r.requests).to.equal(expected.refs.size);
      expect(micros(r.revenue)).to.equal(expected.revenue);
      expect(micros(r.revenue_without_cost)).to.equal(expected.withoutCost);
      expect(micros(r.upstream_cost)).to.equal(expected.cost);
      expect(micros(r.margin)).to.equal(expected.cost === null ? null : expected.revenue - expected.withoutCost - expected.cost);
    }
    // Totals: the sum over every entry with a known cost of (charge - cost); the rest reported apart.
    const costed = entries.filter((e: any) => e.purpose.upstream_cost?.amount != null);
    const margin = costed.reduce((sum: bigint, e: any) => sum + BigInt(e.amount) + BigInt(e.debt_delta) - BigInt(e.purpose.upstream_cost.amount), 0n);
    expect(micros(report.totals.margin)).to.equal(margin);
    expect(micros(report.totals.revenue)).to.equal(entries.reduce((sum: bigint, e: any) => sum + BigInt(e.amount) + BigInt(e.debt_delta), 0n));
    expect(report.data.find((r: any) => r.model === 'sandbox/claude-sonnet')).to.include({ upstream_cost: null, margin: null });
    expect(micros(report.totals.revenue_without_cost)! > 0n).to.equal(true);
    // One customer's report is its rows alone.
    const one = (await gateway.admin('GET', `/admin/v1/usage/margin?customer_id=${a.customerId}&from=${start}&to=${to}`)).body;
    expect(one.data.every((r: any) => r.customer_id === a.customerId)).to.equal(true);
    expect(one.data.length).to.be.above(0);
  });

  it('shows the operator the cost in exports; a customer never sees a cost in its receipts, exports, quotes or price list', async () => {
    // One final period for every answer: the margin report's own end (the watermark then).
    const margin = await gateway.admin('GET', `/admin/v1/usage/margin?from=${start}`);
    expect(margin.status, JSON.stringify(margin.body)).to.equal(200);
    const report = margin.body;
    const to = report.to;
    const admin = await fetch(`${gateway.url}/admin/v1/usage/export?from=${start}&to=${to}&format=ndjson`, {
      headers: { authorization: `Bearer ${gateway.adminToken}` },
    });
    const lines = (await admin.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const charges = lines.filter((l) => l.object === 'usage_export.line');
    expect(charges.find((l) => l.id === requests['haiku-0'])).to.include({ upstream_provider: 'sandbox-anthropic', price_rule: 'list', plan: null });
    expect(charges.find((l) => l.id === requests['haiku-1'])).to.include({ price_rule: 'plan_multiplier', plan: 'Reseller' });
    const exported = charges.reduce((sum, l) => sum + (l.upstream_cost === null ? 0n : micros(l.upstream_cost)!), 0n);
    expect(exported).to.equal(micros(report.totals.upstream_cost));

    const seen = [
      await text(b.key, `/v1/requests/${requests['haiku-1']}`),
      await text(b.key, `/v1/requests/${requests.video}`),
      await text(b.key, `/v1/usage/export?from=${start}&to=${to}`),
      await text(b.key, `/v1/usage/export?from=${start}&to=${to}&format=ndjson`),
      await text(b.key, '/v1/models/pricing'),
      await text(b.key, `/v1/videos/${requests.video}`),
      JSON.stringify(
        (await post(b.key, '/v1/messages', { model: 'sandbox/claude-haiku', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], dry_run: true })).body,
      ),
    ];
    for (const answer of seen) {
      expect(answer).to.not.match(/upstream_cost|upstream_provider|"routes"|sandbox-ark|sandbox-anthropic/);
    }
    expect(seen[2]!.split('\r\n')[0]).to.include('price_rule,plan');
  });
});

function formatted(value: bigint): string {
  return `${value / 1_000_000n}.${(value % 1_000_000n).toString().padStart(6, '0')}`;
}
