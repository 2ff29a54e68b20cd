// Redeem codes end to end over HTTP on a real database: minted once in clear and stored hashed,
// redeemed into the journal as a top-up named by the code's id, idempotent per customer, refused
// alike whatever was wrong, voided, expired, and limited per key and per client address.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { mintBatch, redeem } from '../../helpers/redeem.ts';

const digest = (code: string) => createHash('sha256').update(code.replace(/-/g, '')).digest('hex');

describe(`redeem codes (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway({ env: { REDEEM_ATTEMPTS_PER_KEY: '1000', REDEEM_ATTEMPTS_PER_ADDRESS: '1000' } });
  });
  after(async () => gateway?.close());

  const wallet = async (customerId: string) => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  const journal = async (customerId: string) => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=100`)).body.data as any[];

  it('mints a batch whose clear codes are answered once and stored only as digests', async () => {
    const batch = await mintBatch(gateway, { amount: '2.5', count: 4, note: 'launch' });
    expect(batch.body).to.deep.include({ object: 'redeem_batch', amount: '2.500000', currency: 'USD', count: 4, note: 'launch', active: 4, redeemed: 0 });
    expect(batch.codes).to.have.length(4);
    expect(new Set(batch.codes.map((c) => c.code)).size).to.equal(4);
    for (const { id, code } of batch.codes) {
      expect(id).to.match(/^rc_[A-Za-z0-9]{20}$/);
      expect(code).to.match(/^([0-9A-HJKMNP-TV-Z]{4}-){5}[0-9A-HJKMNP-TV-Z]{4}$/);
    }
    const rows = await gateway.db('redeem_codes').where({ batch_id: batch.id }).orderBy('seq');
    expect(rows.map((r: any) => r.code_hash)).to.deep.equal(batch.codes.map((c) => digest(c.code)));
    const text = (rows: unknown) => JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const stored = text(await gateway.db('redeem_codes').select('*')) + text(await gateway.db('redeem_batches').select('*'));
    for (const { code } of batch.codes) expect(stored).to.not.contain(code.replace(/-/g, '')).and.not.contain(code);
    // Listed afterwards without the codes.
    const listed = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}`)).body;
    expect(listed.data.map((c: any) => c.id)).to.deep.equal(batch.codes.map((c) => c.id));
    expect(JSON.stringify(listed)).to.not.contain(batch.codes[0]!.code);
    expect((await gateway.admin('GET', `/admin/v1/redeem-batches/${batch.id}`)).body).to.deep.include({ id: batch.id, active: 4 });
  });

  it('credits the wallet once, as a top-up whose reference is the code id, repaying debt first; a replay answers the same and credits nothing', async () => {
    const { customerId, keyId, key } = await gateway.customerWithKey();
    // A debt of 1.25 the next credit repays first.
    const debt = await gateway.admin('POST', `/admin/v1/customers/${customerId}/adjustments`, {
      amount: '-1.25',
      reason: 'delivered before the balance ran out',
      reference: 'debt-1',
      record_debt: true,
    });
    expect(debt.status).to.equal(201);
    expect((await wallet(customerId)).debt).to.equal('1.250000');
    const batch = await mintBatch(gateway, { amount: '5.00', count: 1 });
    const [{ id, code }] = batch.codes as [{ id: string; code: string }];

    const first = await redeem(gateway.url, key, code.toLowerCase().replace(/-/g, ' '));
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.equal({
      object: 'credit_redemption',
      code_id: id,
      amount: '5.000000',
      currency: 'USD',
      redeemed_at: first.body.redeemed_at,
      reference: `top_up:redeem:${id}`,
    });
    expect(await wallet(customerId)).to.include({ credits: '5.000000', debt: '0.000000', available: '3.750000' });
    const entries = await journal(customerId);
    const topUp = entries.find((e) => e.reference === `top_up:redeem:${id}`);
    expect(topUp).to.include({ kind: 'top_up', amount: '5.000000' });
    expect(topUp.purpose).to.include({ source: 'redeem_code', code_id: id, batch_id: batch.id, key_id: keyId });
    expect(entries.find((e) => e.reference === `debt_repaid:top_up:redeem:${id}`)).to.include({ kind: 'debt_repaid', amount: '1.250000' });
    expect(JSON.stringify(entries)).to.not.contain(code.replace(/-/g, ''));
    await gateway.services.requestLogs.flush();
    const rows = JSON.stringify(await gateway.db('request_logs').select('*'), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    for (const text of [gateway.rawLogs().toUpperCase(), rows.toUpperCase()])
      expect(text).to.not.contain(code.replace(/-/g, '').slice(0, 8)).and.not.contain(code.slice(0, 9)); // never logged, as typed or not

    // The same customer, the same code, any key: the same answer, 200, nothing more credited.
    const again = await redeem(gateway.url, key, code);
    expect(again).to.deep.include({ status: 200, body: first.body });
    const otherKey = (await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, { name: 'second' })).body.key;
    expect((await redeem(gateway.url, otherKey, code)).body).to.deep.equal(first.body);
    expect((await wallet(customerId)).credits).to.equal('5.000000');
    expect((await journal(customerId)).filter((e) => e.kind === 'top_up')).to.have.length(1);

    // The operator sees who redeemed it, with which key, when, and its journal reference.
    const [listed] = (await gateway.admin('GET', `/admin/v1/redeem-codes?customer_id=${customerId}`)).body.data;
    expect(listed).to.deep.include({ id, status: 'redeemed', redeemed_by: customerId, redeemed_key_id: keyId, reference: `top_up:redeem:${id}` });
    expect(listed.redeemed_at).to.equal(first.body.redeemed_at);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
  });

  it('refuses a wrong, expired, voided or used code with one answer, after the same statements', async () => {
    const owner = await gateway.customerWithKey();
    const other = await gateway.customerWithKey();
    const batch = await mintBatch(gateway, { count: 4 });
    const [used, voided, expired, good] = batch.codes as Array<{ id: string; code: string }>;
    expect((await redeem(gateway.url, owner.key, used!.code)).status).to.equal(200);
    expect((await gateway.admin('POST', `/admin/v1/redeem-codes/${voided!.id}/void`, { reason: 'lost' })).body.status).to.equal('voided');
    await gateway
      .db('redeem_codes')
      .where({ id: expired!.id })
      .update({ expires_at: new Date(Date.now() - 1000) }); // its expiry passes
    const wrong = `${good!.code.slice(0, -1)}${good!.code.endsWith('A') ? 'B' : 'A'}`;

    const statements: string[] = [];
    const record = (query: { sql: string }) => {
      if (/redeem_/.test(query.sql)) statements.push(query.sql);
    };
    gateway.db.on('query', record);
    const shapes: string[][] = [];
    const answers: Array<{ status: number; body: unknown; headers: string[] }> = [];
    try {
      for (const code of [wrong, expired!.code, voided!.code, used!.code, 'not a code at all']) {
        statements.length = 0;
        const answer = await redeem(gateway.url, other.key, code);
        shapes.push([...statements]);
        answers.push({
          status: answer.status,
          body: answer.body,
          headers: [...answer.headers.keys()].filter((h) => !['date', 'request-id', 'x-request-id'].includes(h)).sort(),
        });
      }
    } finally {
      gateway.db.off('query', record);
    }
    expect(answers[0]!.status).to.equal(400);
    expect(answers[0]!.body).to.deep.equal({
      error: {
        message: 'This code cannot be redeemed. Check that it was typed as given; a code works once, until it expires, and only if it was not withdrawn.',
        type: 'invalid_request_error',
        code: 'redeem_code_refused',
        param: 'code',
      },
    });
    for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
    expect(shapes[0]).to.have.length(3); // the attempt counted, the claim tried, the customer's own earlier redemption looked for
    for (const shape of shapes) expect(shape).to.deep.equal(shapes[0]);
    expect((await wallet(other.customerId)).credits).to.equal('0.000000');
    // The good code still works.
    expect((await redeem(gateway.url, other.key, good!.code)).status).to.equal(200);
  });

  it('voids unredeemed codes (one, or the rest of a batch) but never a redeemed one, and lists what became of each', async () => {
    const { customerId, key } = await gateway.customerWithKey();
    const batch = await mintBatch(gateway, { count: 3 });
    const [a, b, c] = batch.codes as Array<{ id: string; code: string }>;
    expect((await redeem(gateway.url, key, a!.code)).status).to.equal(200);
    const refused = await gateway.admin('POST', `/admin/v1/redeem-codes/${a!.id}/void`, {});
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('redeem_code_redeemed');
    const one = await gateway.admin('POST', `/admin/v1/redeem-codes/${b!.id}/void`, { reason: 'sent to the wrong person' });
    expect(one.body).to.include({ status: 'voided', void_reason: 'sent to the wrong person', redeemed_by: null, reference: null });
    expect((await gateway.admin('POST', `/admin/v1/redeem-codes/${b!.id}/void`)).body.voided_at).to.equal(one.body.voided_at); // again: as it is
    const rest = await gateway.admin('POST', `/admin/v1/redeem-batches/${batch.id}/void`, { reason: 'campaign over' });
    expect(rest.body).to.deep.include({ object: 'redeem_batch_void', voided: 1 });
    expect(rest.body.batch).to.include({ active: 0, redeemed: 1, voided: 2, expired: 0 });
    expect((await gateway.admin('POST', `/admin/v1/redeem-batches/${batch.id}/void`)).body.voided).to.equal(0);
    expect((await redeem(gateway.url, key, c!.code)).body.error.code).to.equal('redeem_code_refused');
    const statuses = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}`)).body.data.map((x: any) => x.status);
    expect(statuses).to.deep.equal(['redeemed', 'voided', 'voided']);
    expect((await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}&status=voided`)).body.data).to.have.length(2);
    expect((await wallet(customerId)).credits).to.equal('5.000000');
    expect((await gateway.admin('POST', '/admin/v1/redeem-codes/rc_nothing/void')).status).to.equal(404);
    expect((await gateway.admin('POST', '/admin/v1/redeem-batches/rb_nothing/void')).status).to.equal(404);
  });

  it('expires codes by the database clock, refuses a batch that expires before it is minted, and pages the lists', async () => {
    const { key } = await gateway.customerWithKey();
    const past = await gateway.admin('POST', '/admin/v1/redeem-batches', { amount: '1.00', count: 1, expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).to.equal(400);
    expect(past.body.error).to.include({ code: 'redeem_expiry_passed', param: 'expires_at' });
    const huge = await gateway.admin('POST', '/admin/v1/redeem-batches', {
      amount: '2000000000',
      count: 1,
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(huge.body.error).to.include({ code: 'invalid_amount', param: 'amount' });

    const batch = await mintBatch(gateway, { count: 5 });
    await gateway
      .db('redeem_codes')
      .where({ batch_id: batch.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await redeem(gateway.url, key, batch.codes[0]!.code)).body.error.code).to.equal('redeem_code_refused');
    expect((await gateway.admin('GET', `/admin/v1/redeem-batches/${batch.id}`)).body).to.include({ active: 0, expired: 5 });
    const first = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}&status=expired&limit=2`)).body;
    expect(first).to.include({ has_more: true, next_after: batch.codes[1]!.id });
    const second = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}&limit=10&after=${first.next_after}`)).body;
    expect(second.data.map((c: any) => c.id)).to.deep.equal(batch.codes.slice(2).map((c) => c.id));
    const batches = (await gateway.admin('GET', '/admin/v1/redeem-batches?limit=1')).body;
    expect(batches).to.include({ has_more: true, next_after: batch.id });
    expect(batches.data[0].id).to.equal(batch.id);
    const older = (await gateway.admin('GET', `/admin/v1/redeem-batches?limit=500&after=${batch.id}`)).body;
    expect(older.data.map((b: any) => b.id)).to.not.include(batch.id);
  });
});

describe(`redeem attempts are limited per key and per client address (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway({ env: { REDEEM_ATTEMPTS_PER_KEY: '3', REDEEM_ATTEMPTS_PER_ADDRESS: '5' } });
  });
  after(async () => gateway?.close());

  it('counts failures only, refuses past the limit without looking at the code, per key and then per address', async () => {
    const batch = await mintBatch(gateway, { count: 6, amount: '1.00' });
    const codes = batch.codes.map((c) => c.code);
    const first = await gateway.customerWithKey();
    // Successes do not count: four codes in a row on a key allowed three failures.
    for (const code of codes.slice(0, 4)) expect((await redeem(gateway.url, first.key, code)).status).to.equal(200);
    // Three failures (concurrently: each is counted before it is tried), then the fourth is refused, a good code too.
    const failures = await Promise.all(['AAAA', 'BBBB', 'CCCC'].map((bad) => redeem(gateway.url, first.key, bad)));
    expect(failures.map((f) => f.status)).to.deep.equal([400, 400, 400]);
    const limited = await redeem(gateway.url, first.key, codes[4]!);
    expect(limited.status).to.equal(429);
    expect(limited.body.error).to.include({ type: 'rate_limit_error', code: 'redeem_attempts_exceeded' });
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 900);
    expect((await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}&status=active`)).body.data).to.have.length(2); // not looked at

    // Another key from the same address: its own allowance, but the address's (5) is shared.
    const second = await gateway.customerWithKey();
    expect((await redeem(gateway.url, second.key, 'DDDD')).status).to.equal(400); // address: 5 counted (3 + 1 refused + 1)
    const byAddress = await redeem(gateway.url, second.key, codes[4]!);
    expect(byAddress.status).to.equal(429);
    expect(byAddress.body.error.code).to.equal('redeem_attempts_exceeded');

    // The counts live in the database: the next window (moved back here) starts afresh.
    await gateway.db('redeem_attempts').update({ window_start: gateway.db.raw("window_start - interval '1 hour'") });
    expect((await redeem(gateway.url, second.key, codes[4]!)).status).to.equal(200);
    expect(await gateway.db('redeem_attempts').where('window_start', '<', gateway.db.raw("now() - interval '30 minutes'"))).to.have.length(0); // old windows cleared
  });
});
