import { expect } from 'chai';
import { parseMicros } from '../../../src/shared/money.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { chat, limitedKey, message, tally, video } from '../../helpers/limits.ts';

// Spend limits as a client sees them: 402 naming the limit before any provider is called, and a
// cap that parallel requests never pass (credit grants stay on: limited keys must not use them).
describe(`key spend limits over HTTP (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway?.close());

  const keyView = async (key: string): Promise<any> => (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json();

  it('never passes the cap under 50 parallel messages, round after round, and refuses with billing_error', async () => {
    const { key, customerId } = await limitedKey(gateway, { spend_limit: { amount: '0.05', period: 'day' } });
    let served = 0;
    for (let round = 0; round < 3; round++) {
      // Each costs about its whole hold: 1,000 output tokens at 5.00 per million, plus the input.
      const { counts, bodies } = await tally(
        await Promise.all(Array.from({ length: 50 }, () => message(gateway.url, key, 'spend [[sim report_output=1000]]', { maxTokens: 1000 }))),
      );
      served += counts[200] ?? 0;
      expect((counts[200] ?? 0) + (counts[402] ?? 0), JSON.stringify(counts)).to.equal(50);
      const refusal = bodies.find((b) => b.status === 402)!;
      expect(refusal.body).to.deep.include({ type: 'error' });
      expect(refusal.body.error.type).to.equal('billing_error');
      expect(refusal.body.error.message).to.match(/API key's spend limit of 0\.050000 per day/);
      await gateway.settled();
    }
    expect(served).to.be.greaterThan(0);

    const holds = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data.filter((e: any) => e.kind === 'reserve');
    expect(holds).to.have.length(served); // its own reservation per request: no grant
    const bound = parseMicros(holds[0].amount);
    const spent = parseMicros((await keyView(key)).spend.day);
    expect(spent <= parseMicros('0.05'), `spent ${spent}`).to.equal(true);
    expect(spent + bound > parseMicros('0.05'), 'the limit, not the balance, stopped it').to.equal(true);
    expect(parseMicros((await gateway.wallet(customerId)).debits)).to.equal(spent);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
  });

  it('refuses chat completions past the limit in the OpenAI shape, with the code naming the limit', async () => {
    const { key } = await limitedKey(gateway, { spend_limit: { amount: '0.000001', period: 'month' } });
    const response = await chat(gateway.url, key, 'hi');
    expect(response.status).to.equal(402);
    expect(((await response.json()) as any).error).to.include({ type: 'billing_error', code: 'key_spend_limit_exceeded', param: null });
  });

  it('counts video tasks in flight against the limit: 2 of 10 parallel tasks fit 1.00 at 0.40 each', async () => {
    const { key } = await limitedKey(gateway, { spend_limit: { amount: '1.00', period: 'total' } });
    const { counts, bodies } = await tally(
      await Promise.all(Array.from({ length: 10 }, (_, i) => video(gateway.url, key, `task ${i} [[sim queued_ms=60000]]`))),
    );
    expect(counts).to.deep.equal({ 202: 2, 402: 8 });
    expect(bodies.find((b) => b.status === 402)!.body.error.code).to.equal('key_spend_limit_exceeded');
  });

  it('lets a key without limits spend through credit grants, and still reports its spend', async () => {
    const made = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${made.customerId}/credits`, { amount: '10.00', reference: `fund-${made.customerId}` });
    const answers = await Promise.all(Array.from({ length: 5 }, () => message(gateway.url, made.key, 'hi')));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200]);
    await Promise.all(answers.map((a) => a.text()));
    await gateway.settled();
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${made.customerId}/ledger?limit=500`)).body.data;
    expect(journal.filter((e: any) => e.kind === 'charge')).to.have.length(5); // drawn from a grant, charged in batches
    const view = await keyView(made.key);
    expect(view.spend.total).to.equal((await gateway.wallet(made.customerId)).debits);
    expect(view.limits).to.deep.equal({ requests_per_minute: null, max_concurrent: null, spend_limit: null });
  });
});
