import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('admin API: wallets, journal, reconciliation, request logs', () => {
  let gateway: TestGateway;
  let customerId: string;
  before(async () => {
    gateway = await startTestGateway();
  });
  beforeEach(async () => {
    await gateway.reset();
    customerId = (await gateway.admin('POST', '/admin/v1/customers', { name: 'Acme' })).body.id;
  });
  after(async () => gateway?.close());

  const credit = (body: unknown, id = customerId) => gateway.admin('POST', `/admin/v1/customers/${id}/credits`, body);
  const wallet = async () => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;

  it('credits a wallet once per reference and shows it as decimal strings', async () => {
    const first = await credit({ amount: '10.00', reference: 'inv-1' });
    expect(first.status).to.equal(201);
    expect(first.body.replayed).to.equal(false);
    expect(first.body.entry).to.include({ kind: 'top_up', reference: 'top_up:inv-1', amount: '10.000000' });
    expect(first.body.wallet).to.deep.equal({
      object: 'wallet',
      customer_id: customerId,
      currency: 'USD',
      credits: '10.000000',
      debits: '0.000000',
      reserved: '0.000000',
      available: '10.000000',
      debt: '0.000000',
    });

    const replay = await credit({ amount: '10.000000', reference: 'inv-1' });
    expect(replay.status).to.equal(200);
    expect(replay.body.replayed).to.equal(true);
    expect(replay.body.entry.id).to.equal(first.body.entry.id);

    const conflict = await credit({ amount: '11.00', reference: 'inv-1' });
    expect(conflict.status).to.equal(409);
    expect(conflict.body.error).to.include({ code: 'reference_conflict', param: 'reference' });

    await credit({ amount: '0.000001', reference: 'inv-2' });
    expect((await wallet()).available).to.equal('10.000001');
  });

  it('answers bad amounts, unknown customers and absurd values with 400/404 and changes nothing', async () => {
    await credit({ amount: '5', reference: 'base' });
    const cases: Array<[unknown, number, string | null]> = [
      [{ amount: '-1.00', reference: 'a' }, 400, 'amount'],
      [{ amount: '1.0000001', reference: 'a' }, 400, 'amount'],
      [{ amount: '1e6', reference: 'a' }, 400, 'amount'],
      [{ amount: 10, reference: 'a' }, 400, 'amount'],
      [{ amount: '0', reference: 'a' }, 400, 'amount'],
      [{ amount: '0.000000', reference: 'a' }, 400, 'amount'],
      [{ amount: '9999999999.999999', reference: 'a' }, 400, 'amount'],
      [{ amount: '99999999999999999999', reference: 'a' }, 400, 'amount'],
      [{ amount: '1.00' }, 400, 'reference'],
      [{ amount: '1.00', reference: '' }, 400, 'reference'],
      [{ amount: '1.00', reference: 'a', extra: true }, 400, null],
    ];
    for (const [body, status, param] of cases) {
      const response = await credit(body);
      expect(response.status, JSON.stringify(body)).to.equal(status);
      if (param) expect(response.body.error.param, JSON.stringify(body)).to.equal(param);
    }
    expect((await credit({ amount: '1.00', reference: 'x' }, 'cus_nobody')).status).to.equal(404);
    expect((await gateway.admin('GET', '/admin/v1/customers/cus_nobody/wallet')).status).to.equal(404);
    expect((await gateway.admin('GET', '/admin/v1/customers/cus_nobody/ledger')).status).to.equal(404);
    expect(await wallet()).to.include({ credits: '5.000000', available: '5.000000' });
    expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger`)).body.data).to.have.length(1);
  });

  it('pages the journal and proves the wallets by reconciliation', async () => {
    for (let i = 0; i < 5; i++) await credit({ amount: '1.00', reference: `r${i}` });
    const page1 = await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=2`);
    expect(page1.body.data.map((e: any) => e.reference)).to.deep.equal(['top_up:r4', 'top_up:r3']);
    expect(page1.body.has_more).to.equal(true);
    const page2 = await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=2&before=${page1.body.next_before}`);
    expect(page2.body.data.map((e: any) => e.reference)).to.deep.equal(['top_up:r2', 'top_up:r1']);
    expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=0`)).status).to.equal(400);
    expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?before=abc`)).status).to.equal(400);

    const ok = await gateway.admin('GET', '/admin/v1/ledger/reconciliation');
    const { priced, ...rest } = ok.body;
    expect(rest).to.deep.equal({
      object: 'reconciliation',
      ok: true,
      wallets_checked: 1,
      mismatches: [],
      key_spend_mismatches: [],
      stale_holds: { count: 0, amount: '0.000000', refs: [] },
      debt: { customers: 0, amount: '0.000000' },
    });
    // The charges of the last 24 hours against their priced usage (nothing was charged here).
    expect(priced).to.deep.include({ checked: 0, difference_count: 0, differences: [] });
    expect(Date.parse(priced.until) - Date.parse(priced.since)).to.equal(24 * 3_600_000);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation?since=yesterday')).status).to.equal(400);
    await gateway.db('wallets').where({ customer_id: customerId }).update({ credits_posted: 1 });
    const broken = await gateway.admin('GET', '/admin/v1/ledger/reconciliation');
    expect(broken.body.ok).to.equal(false);
    expect(broken.body.mismatches).to.deep.equal([{ customer_id: customerId, column: 'credits_posted', wallet: '0.000001', expected: '5.000000' }]);
  });

  it('logs every public request with who, what, status and latency, filterable and paged', async () => {
    const { key, keyId, customerId: owner } = await gateway.customerWithKey();
    await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    await fetch(`${gateway.url}/v1/models/sandbox%2Fclaude-haiku`, { headers: { authorization: `Bearer ${key}` } });
    await fetch(`${gateway.url}/v1/models`, { headers: { authorization: 'Bearer sk-gw-bad' } });
    await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 5, messages: [{ role: 'user', content: 'secret prompt text' }] }),
    });
    await fetch(`${gateway.url}/healthz`);
    await gateway.requestLogs('', 4);

    const all = await gateway.admin('GET', '/admin/v1/request-logs');
    expect(all.status).to.equal(200);
    const rows = all.body.data;
    expect(rows.map((r: any) => [r.endpoint, r.status])).to.deep.equal([
      ['messages_create', 402],
      ['models_list', 401],
      ['models_retrieve', 200],
      ['models_list', 200],
    ]);
    expect(rows[0]).to.include({ customer_id: owner, key_id: keyId, model: 'sandbox/claude-haiku', error_type: 'billing_error', stream: false, cost: null });
    expect(rows[1]).to.include({ customer_id: null, error_type: 'authentication_error' });
    expect(rows[2]).to.include({ model: 'sandbox/claude-haiku' });
    expect(rows[3].latency_ms).to.be.a('number');
    expect(JSON.stringify(all.body)).to.not.include('secret prompt text');
    expect(JSON.stringify(all.body)).to.not.include(key);

    const mine = await gateway.admin('GET', `/admin/v1/request-logs?customer_id=${owner}&endpoint=models_list`);
    expect(mine.body.data).to.have.length(1);
    const byModel = await gateway.admin('GET', '/admin/v1/request-logs?model=sandbox%2Fclaude-haiku&endpoint=models_retrieve');
    expect(byModel.body.data.map((r: any) => r.endpoint)).to.deep.equal(['models_retrieve']);
    // Nothing from 2099 on is final yet (docs/money.md, "The export watermark").
    const future = await gateway.admin('GET', '/admin/v1/request-logs?from=2099-01-01T00:00:00Z');
    expect(future.status).to.equal(425);
    expect(future.body.error).to.include({ code: 'period_not_final', param: 'from' });
    expect(Date.parse(future.headers.get('watermark')!)).to.be.at.most(Date.now());
    const page = await gateway.admin('GET', '/admin/v1/request-logs?limit=3');
    expect(page.body.has_more).to.equal(true);
    const rest = await gateway.admin('GET', `/admin/v1/request-logs?limit=3&before=${page.body.next_before}`);
    expect(rest.body.data.map((r: any) => r.request_id)).to.deep.equal([rows[3].request_id]);
    expect((await gateway.admin('GET', '/admin/v1/request-logs?from=yesterday')).status).to.equal(400);
  });
});
