import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { limitedKey } from '../../helpers/limits.ts';
import { videoCalls } from '../../helpers/videos.ts';

// Issue 33, item 1: whatever the provider reports as delivered is charged in full, in one
// posting: the hold first, then the available balance (behind a grant too), then debt. The
// simulators bill each media block by `[[sim media_tokens=N]]`, as real providers bill an image
// by its pixels while the gateway can only count its URL, so the report can exceed the hold.
describe(`every delivered unit is charged: the hold, then the balance, then debt (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(90_000);
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway?.close());

  const funded = async (amount: string) => {
    const customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount, reference: `fund-${customer.customerId}` });
    return customer;
  };
  const post = async (path: string, key: string, body: unknown) => {
    const response = await fetch(gateway.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, requestId: response.headers.get('request-id')!, body: (await response.json()) as any };
  };
  /** A message with one image by URL: the gateway cannot count it, the provider bills `tokens` for it. */
  const imageMessage = (key: string, tokens: number, model = 'sandbox/claude-haiku') =>
    post('/v1/messages', key, {
      model,
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'url', url: 'https://example.com/photos/cat.png' } },
            { type: 'text', text: `What is in this picture? [[sim media_tokens=${tokens}]]` },
          ],
        },
      ],
    });
  /** Responses input with one image by URL (the simulator bills per `directives`). */
  const imageInput = (directives: string) => [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: `Describe it [[sim ${directives}]]` },
        { type: 'input_image', image_url: 'https://example.com/photos/dog.jpg' },
      ],
    },
  ];
  /** The balance is used up, and what it posted plus the debt is what the receipt says was charged. */
  const chargedThroughDebt = async (customerId: string, charge: { total: string; debt: string }) => {
    const wallet = await gateway.wallet(customerId);
    expect(wallet.available).to.equal('0.000000');
    expect(micros(wallet.debits) + micros(wallet.debt)).to.equal(micros(charge.total));
    expect(micros(charge.debt) > 0n).to.equal(true);
  };
  const receipt = async (requestId: string, key: string) => {
    await gateway.settled();
    await gateway.requestLog(requestId);
    return (await (await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
  };
  /** The request's charging entries, once its charge is durable. */
  const entriesOf = async (requestId: string) => {
    await gateway.settled();
    return gateway.db('ledger_entries').whereIn('reference', [`charge:${requestId}`, `settle:${requestId}`, `true_up:${requestId}`]);
  };
  /** Haiku's prices: 1.00 and 5.00 per million tokens, so 1 and 5 micro-units a token. */
  const haikuMicros = (usage: { input_tokens: number; output_tokens: number }) => BigInt(usage.input_tokens) + 5n * BigInt(usage.output_tokens);
  const micros = (decimal: string) => BigInt(decimal.replace('.', ''));
  const reconciled = async () => {
    await gateway.settled();
    const check = await gateway.admin('GET', '/admin/v1/ledger/reconciliation');
    expect(check.body.mismatches).to.deep.equal([]);
    expect(check.body.key_spend_mismatches).to.deep.equal([]);
    expect(check.body.priced.differences).to.deep.equal([]);
    expect(check.body.ok).to.equal(true);
  };

  it('on the default grant path, media billed beyond the hold is charged in full from the balance behind the grant', async () => {
    const customer = await funded('10.00');
    const sent = [];
    for (let i = 0; i < 10; i++) sent.push(await imageMessage(customer.key, 40_000));
    const errors = gateway.logs.filter((l) => (l.level as number) >= 50).map((l) => l.msg);
    expect(
      sent.map((s) => s.status),
      JSON.stringify(errors),
    ).to.deep.equal(Array(10).fill(200));
    let total = 0n;
    let beyondHolds = 0n;
    for (const { requestId, body } of sent) {
      expect(body.usage.input_tokens).to.be.greaterThan(40_000);
      const priced = haikuMicros(body.usage);
      total += priced;
      const [entry, ...others] = await entriesOf(requestId);
      expect(others).to.deep.equal([]); // one posting per request
      expect(entry).to.include({ kind: 'charge' });
      expect([BigInt(entry.amount), BigInt(entry.debt_delta)]).to.deep.equal([priced, 0n]);
      expect(BigInt(entry.debits_delta)).to.equal(priced);
      // Part from the grant's hold (its pending), the rest from the balance.
      const shown = await receipt(requestId, customer.key);
      expect(shown.hold.source).to.equal('grant');
      expect(micros(shown.charge.from_hold)).to.equal(-BigInt(entry.pending_delta));
      expect(micros(shown.charge.from_hold) + micros(shown.charge.from_balance)).to.equal(priced);
      beyondHolds += micros(shown.charge.from_balance);
      expect(shown.charge).to.deep.include({ amount: fmt(priced), debt: '0.000000', waived: '0.000000', total: fmt(priced) });
    }
    // The first requests' grant held a few of their bounds, far less than 40,000 tokens of image.
    expect(beyondHolds > 0n).to.equal(true);
    const wallet = await gateway.wallet(customer.customerId);
    expect(wallet).to.include({ debits: fmt(total), reserved: '0.000000', available: fmt(10_000_000n - total), debt: '0.000000' });
    await reconciled();
  });

  it('a customer with 0.05 is charged all it used: the balance, then debt; the next request is refused', async () => {
    const customer = await funded('0.05');
    const first = await imageMessage(customer.key, 100_000);
    expect(first.status).to.equal(200);
    const priced = haikuMicros(first.body.usage);
    expect(priced > 50_000n).to.equal(true);
    const wallet = await gateway.wallet(customer.customerId);
    expect(wallet).to.include({ debits: '0.050000', reserved: '0.000000', available: '0.000000', debt: fmt(priced - 50_000n) });
    const [entry, ...others] = await entriesOf(first.requestId);
    expect(others).to.deep.equal([]);
    expect([BigInt(entry.amount), BigInt(entry.debt_delta)]).to.deep.equal([50_000n, priced - 50_000n]);
    const shown = await receipt(first.requestId, customer.key);
    expect(shown.charge).to.deep.include({ amount: '0.050000', debt: fmt(priced - 50_000n), total: fmt(priced) });
    expect(micros(shown.charge.from_hold) + micros(shown.charge.from_balance)).to.equal(50_000n);

    const second = await imageMessage(customer.key, 100_000);
    expect(second.status).to.equal(402);
    // The next credit repays the debt first.
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '1.00', reference: `more-${customer.customerId}` });
    expect(await gateway.wallet(customer.customerId)).to.include({ debt: '0.000000', available: fmt(1_000_000n - (priced - 50_000n)) });
    await reconciled();
  });

  it("a key's spend limit refuses the next request; it never reduces what was delivered", async () => {
    const customer = await limitedKey(gateway, { spend_limit: { amount: '0.05', period: 'day' } }, '10.00');
    const first = await imageMessage(customer.key, 100_000);
    expect(first.status).to.equal(200);
    const priced = haikuMicros(first.body.usage);
    const [entry] = await entriesOf(first.requestId);
    expect(entry).to.include({ kind: 'settle' });
    expect([BigInt(entry.amount), BigInt(entry.debt_delta)]).to.deep.equal([priced, 0n]);
    expect(await gateway.wallet(customer.customerId)).to.include({ debits: fmt(priced), debt: '0.000000' });
    const key = (await (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${customer.key}` } })).json()) as any;
    expect(key.spend.day).to.equal(fmt(priced));
    const second = await imageMessage(customer.key, 10);
    expect(second.status).to.equal(402);
    expect(second.body.error.type).to.equal('billing_error');
    expect(second.body.error.message).to.match(/API key's spend limit of 0\.050000 per day/);
    await reconciled();
  });

  it('chat image_url parts and responses input_image items are charged in full the same way', async () => {
    const customer = await funded('0.02');
    const chat = await post('/v1/chat/completions', customer.key, {
      model: 'sandbox/chat-model',
      max_tokens: 20,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe it [[sim media_tokens=60000]]' },
            { type: 'image_url', image_url: { url: 'https://example.com/photos/dog.jpg' } },
          ],
        },
      ],
    });
    expect(chat.status).to.equal(200);
    const entries = await entriesOf(chat.requestId);
    expect(entries).to.have.length(1);
    const shown = await receipt(chat.requestId, customer.key);
    await chargedThroughDebt(customer.customerId, shown.charge);

    const other = await funded('0.02');
    const answered = await post('/v1/responses', other.key, {
      model: 'sandbox/responses-model',
      max_output_tokens: 20,
      input: imageInput('media_tokens=60000'),
    });
    expect(answered.status).to.equal(200);
    expect(await entriesOf(answered.requestId)).to.have.length(1);
    await chargedThroughDebt(other.customerId, (await receipt(answered.requestId, other.key)).charge);
    await reconciled();
  });

  it('a Wan reference-to-video task is charged the seconds delivered, input video included: the hold, then debt', async () => {
    const customer = await funded('0.60');
    const videos = videoCalls(gateway, customer.key);
    const created = await videos.create({
      model: 'sandbox/wan2.7-r2v',
      prompt: 'Video 1 dances [[sim queued_ms=0 running_ms=0]] [[sim input_seconds=2.4]]',
      seconds: 5,
      resolution: '720p',
      // The caller says the clip is 1 s long: the hold counts 5 + 1 s at 0.10.
      content: [{ type: 'video_url', video_url: { url: 'https://example.com/dancer.mp4' }, role: 'reference_video', seconds: 1 }],
    });
    expect(created.status).to.equal(202);
    expect(await gateway.wallet(customer.customerId)).to.include({ reserved: '0.600000', available: '0.000000' });
    const task = await videos.finish(created.body.task_id);
    // DashScope metered 5 s out + 2.4 s in: 7.4 s, billed as 7 whole seconds at 720p = 0.70.
    expect(task.billing).to.deep.include({ amount: '0.700000', seconds: 7, resolution: '720p' });
    expect(await gateway.wallet(customer.customerId)).to.include({ debits: '0.600000', reserved: '0.000000', available: '0.000000', debt: '0.100000' });
    const [settle] = await entriesOf(created.body.task_id);
    expect([settle.kind, BigInt(settle.amount), BigInt(settle.debt_delta)]).to.deep.equal(['settle', 600_000n, 100_000n]);
    expect(settle.purpose.priced).to.deep.equal({ video: { seconds: 7, tier: '720p' } });
    const shown = await receipt(created.body.task_id, customer.key);
    expect(shown.charge).to.deep.include({ amount: '0.600000', from_hold: '0.600000', from_balance: '0.000000', debt: '0.100000', total: '0.700000' });
    // A declared length that is not a video's is refused.
    const refused = await videos.create({
      model: 'sandbox/wan2.7-r2v',
      prompt: 'x',
      content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' }, seconds: 1 }],
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.param).to.equal('content[0].seconds');
    await reconciled();
  });

  it('a background response reporting more than its hold is charged in full when the poller settles it', async () => {
    const customer = await funded('0.02');
    const created = await post('/v1/responses', customer.key, {
      model: 'sandbox/responses-model',
      max_output_tokens: 20,
      background: true,
      input: imageInput('media_tokens=60000 queued_ms=0 running_ms=0'),
    });
    expect(created.status).to.equal(200);
    const task = await gateway.db('video_tasks').where({ upstream_task_id: created.body.id }).first();
    for (let i = 0; i < 100; i++) {
      await gateway
        .db('video_tasks')
        .where({ id: task.id })
        .update({ next_poll_at: new Date(0) });
      await gateway.services.videoWorker.processBatch();
      const now = await gateway.db('video_tasks').where({ id: task.id }).first();
      if (now.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    const [settle, ...others] = await entriesOf(task.id);
    expect(others).to.deep.equal([]);
    const priced = BigInt(settle.amount) + BigInt(settle.debt_delta);
    expect(BigInt(settle.debt_delta) > 0n).to.equal(true);
    expect(settle.purpose.priced.tokens.input_tokens).to.be.greaterThan(60_000);
    expect(await gateway.wallet(customer.customerId)).to.include({ debits: '0.020000', available: '0.000000', debt: fmt(priced - 20_000n) });
    await reconciled();
  });

  it('reconciliation counts apart what was charged before entries recorded their pricing, and names an unpriced charge after it', async () => {
    const customer = await funded('1.00');
    const sent = await imageMessage(customer.key, 2_000);
    expect(sent.status).to.equal(200);
    await reconciled();
    const [entry] = await entriesOf(sent.requestId);
    const { priced: _priced, ...unpriced } = entry.purpose;
    await gateway
      .db('ledger_entries')
      .where({ id: entry.id })
      .update({ purpose: JSON.stringify(unpriced) });
    const broken = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    expect(broken.ok).to.equal(false);
    expect(broken.priced.differences.map((d: any) => [d.id, d.reason])).to.deep.equal([[sent.requestId, 'unpriced']]);
    // As an upgrade leaves it: the migration marked the last entry written before pricing was recorded.
    await gateway
      .db('ledger_marks')
      .insert({ name: 'priced_records_from', entry_id: String(entry.id) })
      .onConflict('name')
      .merge();
    const upgraded = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    expect(upgraded.ok).to.equal(true);
    expect(upgraded.priced).to.deep.include({ difference_count: 0, legacy: 1 });
    await gateway.db('ledger_marks').where({ name: 'priced_records_from' }).delete();
    await gateway
      .db('ledger_entries')
      .where({ id: entry.id })
      .update({ purpose: JSON.stringify(entry.purpose) });
    await reconciled();
  });

  it('reconciliation proves every charge equals its priced usage, and names a posting short of it', async () => {
    const customer = await funded('1.00');
    const sent = await imageMessage(customer.key, 2_000);
    expect(sent.status).to.equal(200);
    await reconciled();
    const report = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    expect(report.priced.checked).to.be.greaterThan(10); // every request of this suite, in the last 24 hours
    // A posting 1,000 input tokens short of the usage it records (what a dropped amount looks
    // like): the wallet still equals its journal, only the priced check sees it.
    const [entry] = await entriesOf(sent.requestId);
    const priced = structuredClone(entry.purpose.priced);
    expect(priced.tokens.input_tokens).to.equal(sent.body.usage.input_tokens);
    priced.tokens.input_tokens += 1_000;
    await gateway
      .db('ledger_entries')
      .where({ id: entry.id })
      .update({ purpose: JSON.stringify({ ...entry.purpose, priced }) });
    const broken = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    expect(broken.ok).to.equal(false);
    expect(broken.mismatches).to.deep.equal([]);
    expect(broken.priced.difference_count).to.equal(1);
    expect(broken.priced.differences).to.deep.equal([
      {
        id: sent.requestId,
        customer_id: customer.customerId,
        reason: 'under_charged',
        priced: fmt(BigInt(entry.amount) + 1_000n),
        charged: fmt(BigInt(entry.amount)),
        debt: '0.000000',
        free_amount: '0.000000',
        waived: '0.000000',
        difference: '0.001000',
      },
    ]);
    // Outside the window, it is not checked.
    const later = new Date(Date.now() + 1_000).toISOString();
    const outside = (await gateway.admin('GET', `/admin/v1/ledger/reconciliation?since=${later}`)).body;
    expect(outside.priced).to.deep.include({ checked: 0, difference_count: 0 });
    await gateway
      .db('ledger_entries')
      .where({ id: entry.id })
      .update({ purpose: JSON.stringify(entry.purpose) });
    await reconciled();
  });
});

const fmt = (m: bigint): string => {
  const sign = m < 0n ? '-' : '';
  const abs = m < 0n ? -m : m;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
};
