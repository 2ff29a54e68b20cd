import { expect } from 'chai';
import { parseMicros } from '../../../src/shared/money.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { HAIKU, limitedKey } from '../../helpers/limits.ts';

// A client's request id never keys money (issue 22, 2): behind a trusted proxy (TRUST_REQUEST_ID),
// N requests carrying one `x-request-id` are N requests: N charges, N request-log rows, N counts
// against a key's limits, from a grant or from per-request holds alike.
describe(`a reused client request id (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  after(async () => gateway?.close());

  const send = (key: string, id: string) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify({ model: HAIKU, max_tokens: 50, messages: [{ role: 'user', content: 'same id [[sim report_output=20]]' }] }),
    });

  async function fiveWithOneId(key: string, customerId: string, id: string) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(key, id)));
    for (const answer of answers) {
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('x-request-id')).to.equal(id); // echoed for the proxy
      expect(answer.headers.get('request-id')).to.match(/^req_/);
      await answer.text();
    }
    const ids = new Set(answers.map((a) => a.headers.get('request-id')));
    expect(ids.size).to.equal(5);
    await gateway.settled();
    await gateway.quiesce();
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=100`)).body.data as any[];
    const charges = journal.filter((e) => e.kind === 'settle' || e.kind === 'charge');
    expect(charges).to.have.length(5);
    for (const charge of charges) expect(parseMicros(charge.amount) > 0n).to.equal(true);
    const wallet = await gateway.wallet(customerId);
    expect(parseMicros(wallet.debits)).to.equal(charges.reduce((sum, c) => sum + parseMicros(c.amount), 0n));
    const rows = await gateway.requestLogs(`customer_id=${customerId}`, 5);
    expect(rows).to.have.length(5);
    expect(new Set(rows.map((r) => r.request_id))).to.deep.equal(ids);
    for (const row of rows) expect(row).to.include({ status: 200, client_request_id: id });
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
    return charges;
  }

  for (const grants of ['true', 'false']) {
    it(`five requests with one id are five charges and five log rows (GRANTS=${grants})`, async () => {
      gateway = await startTestGateway({ env: { TRUST_REQUEST_ID: 'true', GRANTS: grants } });
      const { customerId, key } = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: `fund-${customerId}` });
      await fiveWithOneId(key, customerId, 'lb-0001');
      // The same id from another customer is that customer's own request.
      const other = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${other.customerId}/credits`, { amount: '10.00', reference: `fund-${other.customerId}` });
      await fiveWithOneId(other.key, other.customerId, 'lb-0001');
      await gateway.close();
    });
  }

  it('five requests with one id count five times against a key limit (per-request holds)', async () => {
    gateway = await startTestGateway({ env: { TRUST_REQUEST_ID: 'true' } });
    const { customerId, key } = await limitedKey(gateway, { requests_per_minute: 1000 });
    const charges = await fiveWithOneId(key, customerId, 'lb-0002');
    const reserves = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=100`)).body.data.filter((e: any) => e.kind === 'reserve');
    expect(reserves).to.have.length(5); // one hold of its own each
    expect(charges.every((c) => c.kind === 'settle')).to.equal(true);
    // And a limit that admits two a minute admits two of five, whatever id they carry.
    const tight = await limitedKey(gateway, { requests_per_minute: 2 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(tight.key, 'lb-0003')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 200, 429, 429, 429]);
    await Promise.all(answers.map((a) => a.text()));
  });
});
