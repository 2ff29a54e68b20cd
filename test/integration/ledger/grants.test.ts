import { expect } from 'chai';
import type { ModelEntry } from '../../../src/catalogue/types.ts';
import { openStream } from '../../helpers/child-gateway.ts';
import { eventually } from '../../helpers/eventually.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// An expensive model, so one request's bound is a large part of a small wallet.
const DEAR: ModelEntry = {
  id: 'sandbox/claude-dear',
  group: 'messages',
  routes: [{ provider: 'sandbox-anthropic', upstream_model: 'claude-dear' }],
  max_output_tokens: 100000,
  price: { input_per_mtok: '10.00', output_per_mtok: '100.00' },
};

const catalogue = (): string => sampleCatalogueWith({ models: [DEAR] });

describe('credit grants: requests draw from a per-process grant, money stays exact', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let second: TestGateway | undefined;
  let cataloguePath: string;
  before(async () => {
    cataloguePath = catalogue();
    gateway = await startTestGateway({ cataloguePath });
  });
  beforeEach(async () => gateway.reset());
  afterEach(async () => {
    await second?.close();
    second = undefined;
  });
  after(async () => gateway?.close());

  const ask = (target: TestGateway, key: string, model: string, maxTokens: number) =>
    fetch(`${target.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'hi' }] }),
    });
  const journal = async (customerId: string) => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];

  it('draws 20 requests from one grant: one hold, twenty charges, no database round trip per request once the grant is held', async () => {
    const { key, customerId } = await fundedCustomer(gateway, { balance: '50.00' });
    expect((await ask(gateway, key, 'sandbox/claude-haiku', 100)).status).to.equal(200); // opens the grant
    const statements: string[] = [];
    const record = (query: { sql: string }) => statements.push(query.sql);
    gateway.db.on('query', record);
    const costs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await ask(gateway, key, 'sandbox/claude-haiku', 100);
      expect(response.status).to.equal(200);
      await response.text();
      costs.push(Number((await gateway.requestLog(response.headers.get('request-id')!)).cost));
    }
    gateway.db.off('query', record);
    // Requests reserved nothing on their own; their charges went out in batches.
    // No request reserved on its own; the grant grew ahead of need at most a few times, off the
    // request path; charges went out in batches.
    expect(statements.filter((sql) => /insert into reservations \(ref, customer_id, amount, price_version_id/.test(sql))).to.deep.equal([]);
    expect(statements.filter((sql) => /'grant', /.test(sql)).length).to.be.at.most(4);
    expect(statements.filter((sql) => /'charge'/.test(sql)).length).to.be.within(1, 21);

    const wallet = await gateway.wallet(customerId); // settles pending charges, gives idle grants back
    expect(wallet.reserved).to.equal('0.000000');
    const entries = await journal(customerId);
    const charges = entries.filter((e) => e.kind === 'charge');
    expect(charges).to.have.length(21);
    expect(new Set(charges.map((e) => e.reservation_ref)).size).to.equal(1);
    expect(charges[0].reservation_ref).to.match(/^gr_/);
    expect(entries.filter((e) => e.kind === 'settle')).to.have.length(0);
    expect(entries.filter((e) => e.kind === 'release')).to.have.length(1); // the grant, given back
    const spent = charges.reduce((sum, e) => sum + Math.round(Number(e.amount) * 1e6), 0);
    expect((50 * 1e6 - spent) / 1e6).to.equal(Number(wallet.available));
    expect(costs.reduce((a, b) => a + Math.round(b * 1e6), 0) + Math.round(Number(charges.at(-1).amount) * 1e6)).to.equal(spent);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('reserves per request when the balance is too small for a grant, and still refuses what it cannot cover', async () => {
    const { key, customerId } = await gateway.customerWithKey();
    // One request's bound (~0.50) is more than a quarter of 1.00: no grant can hold it.
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
    expect((await ask(gateway, key, 'sandbox/claude-dear', 5000)).status).to.equal(200);
    const refused = await ask(gateway, key, 'sandbox/claude-dear', 20000); // a bound of 2.00
    expect(refused.status).to.equal(402);
    await gateway.settled();
    const entries = await journal(customerId);
    expect(entries.filter((e) => e.kind === 'reserve').map((e) => e.reservation_ref)).to.satisfy((refs: string[]) => refs.every((r) => r.startsWith('req_')));
    expect(entries.filter((e) => e.kind === 'settle')).to.have.length(1);
    expect((await gateway.wallet(customerId)).reserved).to.equal('0.000000');
  });

  it('asks another gateway for the balance its grant holds when a request here is short, instead of refusing it', async () => {
    second = await startTestGateway({ cataloguePath, reuseDatabase: true });
    const { key, customerId } = await fundedCustomer(gateway, { balance: '12.00' });
    // Gateway 1 serves requests with a bound of 2.00: it now holds a grant of about a quarter of the
    // balance (3.00, less the charges posted from it).
    for (let i = 0; i < 2; i++) expect((await ask(gateway, key, 'sandbox/claude-dear', 20000)).status).to.equal(200);
    const held = await gateway.db('reservations').where({ customer_id: customerId, kind: 'grant', status: 'pending' });
    expect(held).to.have.length(1);
    expect(Number(held[0].amount)).to.be.within(2_990_000, 3_010_000);
    // Gateway 2 gets a request whose bound (~10.00) needs the money gateway 1's grant holds.
    const big = await ask(second, key, 'sandbox/claude-dear', 100000);
    expect(big.status, await big.clone().text()).to.equal(200);
    await gateway.settled();
    await second.settled();
    const entries = await journal(customerId);
    expect(entries.filter((e) => e.kind === 'unreserve')).to.have.length(1);
    expect((await gateway.wallet(customerId)).reserved).to.equal('0.000000');
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('shows an operator what a live grant would be charged if its process died: the sum of its open requests at the last checkpoint', async () => {
    const { key, customerId } = await fundedCustomer(gateway, { balance: '50.00' });
    expect((await ask(gateway, key, 'sandbox/claude-haiku', 100)).status).to.equal(200); // opens the grant
    const listGrant = async () =>
      ((await gateway.admin('GET', `/admin/v1/reservations?customer_id=${customerId}&status=pending`)).body.data as any[]).find((r) => r.kind === 'grant');
    const streams = await Promise.all([0, 1].map((i) => openStream(gateway.url, key, 'sandbox/claude-haiku', `s${i} [[sim gap_ms=100 deltas=40]]`)));
    await gateway.services.holds.flushCheckpoints();
    const grant = await listGrant();
    const row = await gateway.db('reservations').where({ ref: grant.ref }).first();
    const inflight = (typeof row.progress === 'string' ? JSON.parse(row.progress) : row.progress).inflight as Array<{ charge: string }>;
    expect(inflight).to.have.length(2);
    const sum = inflight.reduce((total, d) => total + BigInt(d.charge), 0n);
    expect(sum > 0n).to.equal(true);
    expect(grant.delivered).to.equal((Number(sum) / 1e6).toFixed(6));
    await Promise.all(streams.map((s) => s.text));
    await gateway.settled();
    await gateway.services.holds.flushCheckpoints(); // the next heartbeat's checkpoint: nothing in flight
    expect((await listGrant())?.delivered ?? null).to.equal(null);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it("refuses to let an operator end a grant, and drops a grant ended elsewhere: the customer's requests go on, billed exactly", async () => {
    const { key, customerId } = await fundedCustomer(gateway, { balance: '50.00' });
    expect((await ask(gateway, key, 'sandbox/claude-haiku', 100)).status).to.equal(200); // opens the grant
    const pending = (await gateway.admin('GET', `/admin/v1/reservations?customer_id=${customerId}&status=pending`)).body.data as any[];
    const grant = pending.find((r) => r.kind === 'grant');
    expect(grant, JSON.stringify(pending)).to.not.equal(undefined);

    const refused = await gateway.admin('POST', `/admin/v1/reservations/${grant.ref}/resolve`, { action: 'release', actor: 'ops@x', reason: 'try' });
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.include({ code: 'reservation_is_grant', type: 'invalid_request_error' });

    // What the sweeper does when it takes this process for dead (its heartbeat stalled while the
    // database was out of reach): the grant's hold ends while the process still draws from it.
    expect(await gateway.services.ledger.release({ ref: grant.ref, purpose: { reason: 'swept' } })).to.not.be.a('string');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const response = await ask(gateway, key, 'sandbox/claude-haiku', 4000); // a bound that soon outgrows what the grant held
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).to.deep.equal(statuses.map(() => 200));

    const wallet = await gateway.wallet(customerId);
    expect(wallet.reserved).to.equal('0.000000');
    const logs = await gateway.requestLogs(`customer_id=${customerId}`, 31);
    const billed = logs.reduce((sum, log) => sum + Math.round(Number(log.cost) * 1e6), 0);
    expect(Math.round(Number(wallet.debits) * 1e6)).to.equal(billed);
    expect(gateway.services.holds.live()).to.equal(0);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('gives an idle grant back', async () => {
    // A gateway of its own (a short idle time), beside the file's on the same database.
    const idle = (second = await startTestGateway({ cataloguePath, env: { GRANT_IDLE_MS: '300' }, reuseDatabase: true }));
    const { key, customerId } = await fundedCustomer(idle, { balance: '50.00' });
    expect((await ask(idle, key, 'sandbox/claude-haiku', 100)).status).to.equal(200);
    await eventually(async () => expect((await idle.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body.reserved).to.equal('0.000000'));
  });
});
