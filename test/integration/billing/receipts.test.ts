import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';

// Receipts (issue 28): every figure a customer can check, from the provider's report to the
// journal, for its own requests and tasks only.
describe(`receipts: GET /v1/requests/{id} and the operators' counterpart (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let mine: { customerId: string; keyId: string; key: string };
  let theirs: { customerId: string; keyId: string; key: string };

  before(async () => {
    gateway = await startTestGateway();
    mine = await gateway.customerWithKey();
    theirs = await gateway.customerWithKey();
    for (const { customerId } of [mine, theirs])
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: `fund-${customerId}` });
  });
  after(async () => gateway?.close());

  const call = async (path: string, body: unknown, key = mine.key) => {
    const response = await fetch(gateway.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, requestId: response.headers.get('request-id')!, text };
  };
  const receipt = async (id: string, key = mine.key) => {
    const response = await fetch(`${gateway.url}/v1/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** The receipt once the request's log row is written (a moment after its charge is durable). */
  const receiptOf = async (requestId: string) => {
    await gateway.settled();
    await gateway.requestLog(requestId);
    return receipt(requestId);
  };
  const journalOf = async (ref: string) =>
    gateway
      .db('ledger_entries')
      .whereIn('reference', [`reserve:${ref}`, `settle:${ref}`, `charge:${ref}`, `release:${ref}`, `true_up:${ref}`])
      .orderBy('id');

  it('a message drawn from a grant: the usage as reported (cache split, tier), the price version, the hold and what it became', async () => {
    const sentAt = Date.now();
    const sent = await call('/v1/messages', {
      model: 'sandbox/claude-haiku',
      max_tokens: 300,
      stream: true,
      messages: [{ role: 'user', content: 'hello [[sim cache_write=40 cache_read=900 tier=standard]]' }],
    });
    expect(sent.status).to.equal(200);
    const { status, body } = await receiptOf(sent.requestId);
    expect(status).to.equal(200);
    expect(body).to.deep.include({ object: 'receipt', id: sent.requestId, type: 'request', customer_id: mine.customerId, key_id: mine.keyId });
    expect(body).to.include({ endpoint: 'messages_create', model: 'sandbox/claude-haiku', http_status: 200, task_status: null, currency: 'USD' });
    expect(body).to.not.have.any.keys('provider', 'upstream_request_id');
    expect(body.price).to.deep.equal({
      version: 1,
      model: 'sandbox/claude-haiku',
      unit_prices: { input_per_mtok: '1.000000', output_per_mtok: '5.000000', cache_read_per_mtok: '0.100000', cache_write_per_mtok: '1.250000' },
    });
    const reported = body.usage.reported;
    expect(reported).to.include({ cache_creation_input_tokens: 40, cache_read_input_tokens: 900, service_tier: 'standard' });
    expect(body.usage.billed).to.include({
      input_tokens: reported.input_tokens,
      output_tokens: reported.output_tokens,
      cache_read_tokens: 900,
      cache_write_tokens: 40,
    });
    expect(body.measurement).to.deep.equal({ estimated: false, reason: null, explanation: 'The provider reported every count; nothing was estimated.' });
    // The charge is the usage at the version's unit prices, rounded up once; the journal says the same.
    const micros = BigInt(Math.ceil(reported.input_tokens * 1 + 900 * 0.1 + 40 * 1.25 + reported.output_tokens * 5 - 1e-9));
    const [entry] = await journalOf(sent.requestId);
    expect(entry).to.include({ kind: 'charge' });
    expect(BigInt(entry.amount)).to.equal(micros);
    expect(body.charge).to.deep.equal({
      amount: fmt(micros),
      from_hold: fmt(micros),
      from_balance: '0.000000',
      debt: '0.000000',
      waived: '0.000000',
      true_up: '0.000000',
      total: fmt(micros),
      free_units: 0,
      free_amount: '0.000000',
    });
    // Created when the request arrived: before its charge was posted (the log row is written after).
    expect(Date.parse(body.created_at)).to.be.within(sentAt - 5, Date.parse(body.settled_at));
    expect(body.settled_at).to.equal(new Date(entry.created_at).toISOString());
    expect(body.hold.source).to.equal('grant');
    expect(body.hold.outcome).to.equal('settled');
    expect(BigInt(micros) + toMicros(body.hold.released)).to.equal(toMicros(body.hold.amount));
    expect(body.hold.amount).to.equal(fmt(BigInt(entry.purpose.reserved)));
    expect(body.journal).to.deep.equal([
      {
        kind: 'charge',
        reference: `charge:${sent.requestId}`,
        amount: fmt(micros),
        free_units: 0,
        free_amount: '0.000000',
        debt: '0.000000',
        created_at: new Date(entry.created_at).toISOString(),
      },
    ]);
  });

  it('free units: the reservation holds them, the charge spends them, and both are on the receipt', async () => {
    const sent = await call('/v1/messages', { model: 'sandbox/claude-sonnet', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] });
    expect(sent.status).to.equal(200);
    const { body } = await receiptOf(sent.requestId);
    const [reserve, settle] = await journalOf(sent.requestId);
    expect(reserve.kind).to.equal('reserve');
    expect(settle.kind).to.equal('settle');
    expect(body.hold).to.deep.include({
      source: 'reservation',
      outcome: 'settled',
      amount: fmt(BigInt(reserve.amount)),
      free_units_held: Number(reserve.free_units),
    });
    expect(body.hold.free_units_held).to.be.greaterThan(0);
    const billed = body.usage.billed.input_tokens + body.usage.billed.output_tokens;
    expect(body.charge).to.deep.include({ amount: '0.000000', free_units: billed, free_amount: fmt(BigInt(settle.free_amount)) });
    expect(BigInt(settle.free_amount) > 0n).to.equal(true);
    expect(body.price).to.include({ version: 1, model: 'sandbox/claude-sonnet' });
  });

  it('estimated usage says which counts and why; a cut stream is estimated from what was delivered', async () => {
    const none = await call('/v1/chat/completions', { model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'hello [[sim no_usage]]' }] });
    expect(none.status).to.equal(200);
    const quiet = (await receiptOf(none.requestId)).body;
    expect(quiet.usage.reported).to.equal(null);
    expect(quiet.measurement).to.deep.include({ estimated: true, reason: 'input_not_reported,output_not_reported' });
    expect(quiet.measurement.explanation).to.equal('Estimated: input was estimated from the request; output was estimated from the content delivered.');

    const cut = await call('/v1/messages', {
      model: 'sandbox/claude-haiku',
      max_tokens: 300,
      stream: true,
      messages: [{ role: 'user', content: 'hello [[sim cut=3]]' }],
    });
    expect(cut.status).to.equal(200);
    const cutReceipt = (await receiptOf(cut.requestId)).body;
    expect(cutReceipt.measurement).to.deep.include({ estimated: true, reason: 'output_not_final' });
    expect(cutReceipt.usage.reported.input_tokens).to.be.a('number');
    expect(cutReceipt.charge.amount).to.not.equal('0.000000');

    const reasoning = await call('/v1/chat/completions', {
      model: 'sandbox/chat-model',
      messages: [{ role: 'user', content: 'hello [[sim cached=5 reasoning=30]]' }],
    });
    const reasoned = (await receiptOf(reasoning.requestId)).body;
    expect(reasoned.usage.reported.prompt_tokens_details).to.deep.include({ cached_tokens: 5 });
    expect(reasoned.usage.reported.completion_tokens_details).to.deep.include({ reasoning_tokens: 30 });
    expect(reasoned.usage.billed).to.include({ cache_read_tokens: 5, reasoning_tokens: 30 });
    expect(reasoned.measurement.estimated).to.equal(false);
  });

  it('a /v1/responses receipt carries the usage as reported and, when the provider reported none, why it was estimated', async () => {
    const reported = await call('/v1/responses', {
      model: 'sandbox/responses-model',
      max_output_tokens: 100,
      input: 'hello [[sim cached=5 reasoning=30 tier=flex]]',
    });
    expect(reported.status).to.equal(200);
    const body = (await receiptOf(reported.requestId)).body;
    expect(body.endpoint).to.equal('responses_create');
    expect(body.usage.reported).to.deep.include({ service_tier: 'flex' });
    expect(body.usage.reported.input_tokens).to.be.a('number');
    expect(body.usage.reported.input_tokens_details).to.deep.include({ cached_tokens: 5 });
    expect(body.usage.reported.output_tokens_details).to.deep.include({ reasoning_tokens: 30 });
    expect(body.usage.billed).to.include({ cache_read_tokens: 5, reasoning_tokens: 30, multiplier: 'flex x0.5' });
    expect(body.measurement).to.deep.equal({ estimated: false, reason: null, explanation: 'The provider reported every count; nothing was estimated.' });

    for (const stream of [false, true]) {
      const quiet = await call('/v1/responses', { model: 'sandbox/responses-model', max_output_tokens: 100, stream, input: 'hello [[sim no_usage]]' });
      expect(quiet.status).to.equal(200);
      const estimated = (await receiptOf(quiet.requestId)).body;
      expect(estimated.usage.reported).to.equal(null);
      expect(estimated.measurement).to.deep.equal({
        estimated: true,
        reason: 'input_not_reported,output_not_reported',
        explanation: 'Estimated: input was estimated from the request; output was estimated from the content delivered.',
      });
    }
  });

  it('a request refused before any provider call held nothing; a provider failure released its hold whole', async () => {
    const missing = await call('/v1/messages', { model: 'nobody/nothing', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    expect(missing.status).to.equal(404);
    const refused = (await receiptOf(missing.requestId)).body;
    expect(refused.hold).to.deep.equal({ source: null, amount: null, free_units_held: 0, outcome: 'none', released: null });
    expect(refused.charge.total).to.equal('0.000000');
    expect(refused.price).to.equal(null);

    const failed = await call('/v1/messages', { model: 'sandbox/claude-haiku', max_tokens: 5, messages: [{ role: 'user', content: 'x [[sim error=400]]' }] });
    expect(failed.status).to.equal(400);
    const released = (await receiptOf(failed.requestId)).body;
    expect(released.hold.outcome).to.equal('released');
    expect(released.hold.released).to.equal(released.hold.amount);
    expect(released.charge.total).to.equal('0.000000');
  });

  it("another customer's request or task is 404, as is an id that names nothing; operators see any, with the route", async () => {
    const sent = await call('/v1/messages', { model: 'sandbox/claude-haiku', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    await receiptOf(sent.requestId);
    const other = await receipt(sent.requestId, theirs.key);
    expect(other.status).to.equal(404);
    expect(other.body.error).to.include({ code: 'request_not_found', type: 'not_found_error', param: 'request_id' });
    expect((await receipt('req_doesnotexist')).status).to.equal(404);
    expect((await receipt('vt_doesnotexist')).status).to.equal(404);
    expect((await receipt('cus_notarequest')).status).to.equal(404);
    expect((await fetch(`${gateway.url}/v1/requests/${sent.requestId}`)).status).to.equal(401);
    const admin = await gateway.admin('GET', `/admin/v1/receipts/${sent.requestId}`);
    expect(admin.status).to.equal(200);
    expect(admin.body).to.include({ id: sent.requestId, provider: 'sandbox-anthropic', customer_id: mine.customerId });
    expect(admin.body.upstream_request_id).to.be.a('string');
    expect((await gateway.admin('GET', '/admin/v1/receipts/req_doesnotexist')).status).to.equal(404);
  });

  it('a video task has its receipt by task id: pending while it runs, then the delivered seconds and tier it was billed by', async () => {
    const videos = videoCalls(gateway, mine.key);
    const created = await videos.create({ model: 'sandbox/seedance', prompt: `a cat ${QUICK}`, seconds: 10, resolution: '720p' });
    expect(created.status).to.equal(202);
    const taskId = created.body.task_id;
    const pending = (await receipt(taskId)).body;
    expect(pending).to.include({ type: 'video_task', task_status: 'queued', endpoint: 'videos_create', model: 'sandbox/seedance', http_status: null });
    // 10 free seconds a day: all 10 held from the allowance, no money.
    expect(pending.hold).to.deep.equal({ source: 'video_task', amount: '0.000000', free_units_held: 10, outcome: 'pending', released: null });
    expect(pending.usage.reported).to.equal(null);
    expect((await receipt(taskId, theirs.key)).status).to.equal(404);

    const second = await videos.create({ model: 'sandbox/seedance', prompt: `a dog ${QUICK}`, seconds: 5, resolution: '1080p' });
    for (const id of [taskId, second.body.task_id]) expect((await videos.finish(id)).status).to.equal('completed');
    const done = (await receipt(taskId)).body;
    expect(done.task_status).to.equal('completed');
    expect(done.usage.billed).to.deep.equal({ requested_seconds: 10, requested_resolution: '720p', billed_seconds: 10, tier: '720p' });
    expect(done.usage.reported).to.deep.include({ resolution: '720p' });
    expect(Number(done.usage.reported.seconds)).to.be.closeTo(10, 0.5);
    expect(done.charge).to.deep.include({ amount: '0.000000', free_units: 10, free_amount: '1.000000' });
    expect(done.hold.outcome).to.equal('settled');
    expect(done.journal.map((e: any) => e.kind)).to.deep.equal(['reserve', 'settle']);
    expect(done.price).to.deep.equal({
      version: 1,
      model: 'sandbox/seedance',
      unit_prices: { per_second: { '480p': '0.050000', '720p': '0.100000', '1080p': '0.250000' } },
    });
    // The allowance was spent: the second task paid 5 s at 1080p.
    const paid = (await receipt(second.body.task_id)).body;
    expect(paid.charge).to.deep.include({ amount: '1.250000', total: '1.250000', free_units: 0 });
    expect(paid.hold).to.deep.include({ amount: '1.250000', released: '0.000000' });
    expect(paid.measurement).to.deep.include({ estimated: false, reason: null });
  });
});

const fmt = (micros: bigint) => `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
const toMicros = (decimal: string) => BigInt(decimal.replace('.', ''));
