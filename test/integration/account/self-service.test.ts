import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { chat, message } from '../../helpers/limits.ts';

const QUICK_VIDEO = '[[sim queued_ms=0 running_ms=0]]';

// A customer's own view, authenticated by its key: only its own data, whatever it asks for.
describe(`customer self-service: wallet, key, requests, usage, legacy billing (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let mine: { customerId: string; keyId: string; key: string };
  let theirs: { customerId: string; keyId: string; key: string };
  let second: { keyId: string; key: string };

  before(async () => {
    gateway = await startTestGateway();
    mine = await gateway.customerWithKey();
    theirs = await gateway.customerWithKey();
    for (const { customerId } of [mine, theirs])
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: `fund-${customerId}` });
    const created = await gateway.admin('POST', `/admin/v1/customers/${mine.customerId}/api-keys`, {
      name: 'second',
      limits: { spend_limit: { amount: '2.50', period: 'total' } },
    });
    second = { keyId: created.body.id, key: created.body.key };
    // Traffic of both customers: messages (free quota on sonnet), chat, a video task, a 404.
    for (const { key } of [mine, theirs]) {
      expect((await message(gateway.url, key, 'hello', { model: 'sandbox/claude-sonnet' })).status).to.equal(200);
      expect((await chat(gateway.url, key, 'hello')).status).to.equal(200);
      expect((await message(gateway.url, key, 'hello', { model: 'nobody/nothing' })).status).to.equal(404);
    }
    expect((await message(gateway.url, second.key, 'hello')).status).to.equal(200);
    const task = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mine.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/compatible-video', prompt: `a cat ${QUICK_VIDEO}`, seconds: 4, resolution: '720p' }),
    });
    expect(task.status).to.equal(202);
    for (let i = 0; i < 20 && (await gateway.db('video_tasks').whereNull('billed_amount')).length > 0; i++) {
      await gateway.db('video_tasks').update({ next_poll_at: new Date() });
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 50));
    }
    await gateway.settled();
    await gateway.requestLogs(`customer_id=${mine.customerId}`, 6);
    await gateway.requestLogs(`customer_id=${theirs.customerId}`, 3);
  });
  after(async () => gateway?.close());

  const get = async (key: string, path: string) => {
    const response = await fetch(gateway.url + path, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('shows the wallet: what is available and reserved, and the free quota left until the period ends', async () => {
    const wallet = (await get(mine.key, '/v1/wallet')).body;
    const admin = await gateway.wallet(mine.customerId);
    expect(wallet).to.deep.include({ object: 'wallet', currency: 'USD', available: admin.available, reserved: '0.000000' });
    const sonnet = wallet.free_quota.find((q: any) => q.model === 'sandbox/claude-sonnet');
    expect(sonnet).to.include({ unit: 'tokens', period: 'month', amount: 10000 });
    expect(sonnet.used).to.be.greaterThan(0);
    expect(sonnet.left).to.equal(10000 - sonnet.used);
    const now = new Date();
    expect(sonnet.period_end).to.equal(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    // The other customer's allowance is untouched by this one's traffic, and the reverse.
    expect((await get(theirs.key, '/v1/wallet')).body.free_quota.find((q: any) => q.model === 'sandbox/claude-sonnet').used).to.equal(sonnet.used);
  });

  it('shows the calling key only: its limits and spend, never the other keys', async () => {
    const view = (await get(second.key, '/v1/key')).body;
    expect(view).to.deep.include({
      object: 'api_key',
      id: second.keyId,
      name: 'second',
      limits: { requests_per_minute: null, max_concurrent: null, spend_limit: { amount: '2.500000', period: 'total' } },
    });
    expect(view.spend.day).to.equal(view.spend.total);
    expect(Number(view.spend.total)).to.be.greaterThan(0);
    const first = (await get(mine.key, '/v1/key')).body;
    expect(first.id).to.equal(mine.keyId);
    const wallet = await gateway.wallet(mine.customerId);
    expect((Number(first.spend.total) + Number(view.spend.total)).toFixed(6)).to.equal(wallet.debits);
  });

  it("lists the customer's own requests, with filters, and never another customer's", async () => {
    const all = (await get(mine.key, '/v1/requests?limit=50')).body;
    expect(all.data.every((r: any) => r.customer_id === mine.customerId)).to.equal(true);
    expect(all.data.map((r: any) => r.key_id)).to.include.members([mine.keyId, second.keyId]);
    expect(all.data[0]).to.not.have.any.keys('provider', 'upstream_request_id');
    expect((await get(mine.key, `/v1/requests?key_id=${theirs.keyId}`)).body.data).to.deep.equal([]);
    const secondKey = (await get(mine.key, `/v1/requests?key_id=${second.keyId}`)).body.data;
    expect(new Set(secondKey.map((r: any) => r.key_id))).to.deep.equal(new Set([second.keyId]));
    expect(secondKey.map((r: any) => r.endpoint)).to.include('messages_create');
    expect((await get(mine.key, '/v1/requests?status=404')).body.data.map((r: any) => r.model)).to.deep.equal(['nobody/nothing']);
    expect((await get(mine.key, '/v1/requests?model=sandbox/chat-model')).body.data).to.have.length(1);
    const page = (await get(mine.key, '/v1/requests?limit=2')).body;
    expect(page).to.include({ has_more: true, first_id: page.data[0].id, last_id: page.data[1].id });
    const next = (await get(mine.key, `/v1/requests?limit=50&after=${page.last_id}`)).body;
    // These reads are requests too, logged a moment later: compare the rows both views had.
    const upTo = (ids: string[], top: bigint) => ids.filter((id) => BigInt(id) <= top);
    const top = [BigInt(all.data[0].id), BigInt(page.data[0].id)].reduce((a, b) => (a < b ? a : b));
    expect(
      upTo(
        [...page.data, ...next.data].map((r: any) => r.id),
        top,
      ),
    ).to.deep.equal(
      upTo(
        all.data.map((r: any) => r.id),
        top,
      ),
    );
    // A period that has not come yet is not final: refused, with the watermark (issue 33, 5).
    const future = await get(mine.key, '/v1/requests?from=2100-01-01T00:00:00Z');
    expect(future.status).to.equal(425);
    expect(future.body.error).to.include({ code: 'period_not_final', param: 'from' });
  });

  it('reports usage per day and model, video seconds included, and nothing of the other customer', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const usage = (await get(mine.key, `/v1/usage?start_date=${today}&end_date=${today}`)).body;
    const row = (model: string) => usage.data.find((r: any) => r.model === model);
    expect(row('sandbox/claude-sonnet')).to.include({ date: today, requests: 1, spend: '0.000000' }); // free quota
    expect(row('sandbox/claude-sonnet').input_tokens).to.be.greaterThan(0);
    expect(row('sandbox/chat-model').output_tokens).to.be.greaterThan(0);
    expect(row('sandbox/compatible-video')).to.include({ requests: 1, video_seconds: 4, spend: '0.400000' });
    expect(row('nobody/nothing')).to.equal(undefined);
    expect(usage.total_spend).to.equal((await gateway.wallet(mine.customerId)).debits);
    expect((await get(theirs.key, `/v1/usage?start_date=${today}`)).body.data.find((r: any) => r.model === 'sandbox/compatible-video')).to.equal(undefined);
    expect((await get(mine.key, '/v1/usage?start_date=2026-02-01&end_date=2026-01-01')).status).to.equal(400);
    expect((await get(mine.key, '/v1/usage?start_date=2020-01-01&end_date=2026-01-01')).body.error.code).to.equal('invalid_date_range');
  });

  it('gives operators the same report for one customer, and for every customer summed by day and model (GET /admin/v1/usage)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const range = `start_date=${today}&end_date=${today}`;
    const own = (await get(mine.key, `/v1/usage?${range}`)).body;
    const theirsOwn = (await get(theirs.key, `/v1/usage?${range}`)).body;
    const one = await gateway.admin('GET', `/admin/v1/usage?${range}&customer_id=${mine.customerId}`);
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(own);
    const all = (await gateway.admin('GET', `/admin/v1/usage?${range}`)).body;
    const micros = (amount: string) => BigInt(amount.replace('.', ''));
    expect(micros(all.total_spend)).to.equal(micros(own.total_spend) + micros(theirsOwn.total_spend));
    for (const row of all.data) {
      const parts = [own, theirsOwn].map((report) => report.data.find((r: any) => r.date === row.date && r.model === row.model));
      expect(row.requests, row.model).to.equal(parts.reduce((n, r) => n + (r?.requests ?? 0), 0));
      expect(micros(row.spend), row.model).to.equal(parts.reduce((n, r) => n + (r ? micros(r.spend) : 0n), 0n));
    }
    expect((await gateway.admin('GET', `/admin/v1/usage?${range}&customer_id=cus_nobody`)).body).to.include({ total_spend: '0.000000' });
    const backwards = await gateway.admin('GET', '/admin/v1/usage?start_date=2026-02-01&end_date=2026-01-01');
    expect(backwards.status).to.equal(400);
    expect(backwards.body.error.code).to.equal('invalid_date_range');
    expect((await gateway.admin('GET', `/admin/v1/usage?customer_id=bad`)).status).to.equal(400);
  });

  it('answers the legacy dashboard shapes so that a client shows the balance as hard_limit_usd - total_usage / 100', async () => {
    const wallet = await gateway.wallet(mine.customerId);
    const subscription = (await get(mine.key, '/v1/dashboard/billing/subscription')).body;
    const usage = (await get(mine.key, '/v1/dashboard/billing/usage?start_date=2026-01-01&end_date=2026-01-02')).body;
    expect(subscription).to.include({ object: 'billing_subscription', has_payment_method: true, access_until: 0 });
    expect(usage.object).to.equal('list');
    expect(usage.total_usage).to.be.closeTo(Number(wallet.debits) * 100, 1e-6);
    expect(subscription.hard_limit_usd - usage.total_usage / 100).to.be.closeTo(Number(wallet.available), 1e-6);
    // A key with a total spend limit shows that key's budget.
    const keyed = (await get(second.key, '/v1/dashboard/billing/subscription')).body;
    const spent = Number((await get(second.key, '/v1/key')).body.spend.total);
    expect(keyed.hard_limit_usd).to.equal(2.5);
    expect((await get(second.key, '/v1/dashboard/billing/usage')).body.total_usage).to.be.closeTo(spent * 100, 1e-6);
  });

  it('needs a key: anonymous callers get 401', async () => {
    for (const path of ['/v1/wallet', '/v1/key', '/v1/requests', '/v1/usage', '/v1/dashboard/billing/subscription', '/v1/dashboard/billing/usage']) {
      expect((await fetch(gateway.url + path)).status, path).to.equal(401);
    }
  });
});
