// A customer's request log holds its free reads too (the web console's own calls of the wallet,
// key and log among them), and their receipts have nothing to settle. The log's `billable` and
// `endpoint` filters set them apart (the console shows billable requests by default), and a free
// request's receipt says it was free.
import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { message } from '../../helpers/limits.ts';

describe(`request logs: billable and free requests apart (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let customer: { customerId: string; key: string };
  const ids: Record<string, string> = {};

  before(async () => {
    gateway = await startTestGateway();
    customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '1.00', reference: 'fund' });
    const auth = { authorization: `Bearer ${customer.key}` };
    const call = async (name: string, response: Promise<Response>) => {
      const answer = await response;
      ids[name] = answer.headers.get('request-id')!;
      await answer.arrayBuffer();
    };
    // What the console does when a customer signs in, then one message and one that the balance refuses.
    await call('wallet_get', fetch(`${gateway.url}/v1/wallet`, { headers: auth }));
    await call('key_get', fetch(`${gateway.url}/v1/key`, { headers: auth }));
    await call('requests_list', fetch(`${gateway.url}/v1/requests`, { headers: auth }));
    await call('messages_create', message(gateway.url, customer.key, 'hello', { model: 'sandbox/claude-haiku' }));
    await call('refused', message(gateway.url, customer.key, 'hello', { model: 'sandbox/claude-haiku', maxTokens: 4_000_000 }));
    await gateway.settled();
    await gateway.requestLogs(`customer_id=${customer.customerId}`, 5);
  });
  after(async () => gateway?.close());

  /** The request ids a list answers, of the requests made above (the test's own reads of the log are logged too). */
  const list = async (query: string) => {
    const answer = await fetch(`${gateway.url}/v1/requests?${query}`, { headers: { authorization: `Bearer ${customer.key}` } });
    expect(answer.status).to.equal(200);
    const made = new Set(Object.values(ids));
    return ((await answer.json()) as any).data.map((row: any) => row.request_id).filter((id: string) => made.has(id)) as string[];
  };

  it('GET /v1/requests: billable=true leaves out the free reads, billable=false shows only them, endpoint narrows to one operation', async () => {
    expect((await list('')).length).to.equal(5);
    expect(await list('billable=true')).to.have.members([ids.messages_create, ids.refused]);
    expect(await list('billable=false')).to.have.members([ids.wallet_get, ids.key_get, ids.requests_list]);
    expect(await list('endpoint=wallet_get')).to.deep.equal([ids.wallet_get]);
    expect(await list('endpoint=messages_create&billable=true')).to.have.members([ids.messages_create, ids.refused]);
  });

  it('the operators’ list takes the same filter', async () => {
    const rows = (await gateway.admin('GET', `/admin/v1/request-logs?customer_id=${customer.customerId}&billable=true`)).body.data;
    expect(rows.map((r: any) => r.request_id)).to.have.members([ids.messages_create, ids.refused]);
    const free = (await gateway.admin('GET', `/admin/v1/request-logs?customer_id=${customer.customerId}&billable=false`)).body.data;
    expect(free.map((r: any) => r.request_id))
      .to.include.members([ids.wallet_get, ids.key_get, ids.requests_list])
      .and.not.include.members([ids.messages_create]);
    expect(free.map((r: any) => r.endpoint)).to.not.include('messages_create');
  });

  it('a free request’s receipt says it is not billable: nothing held, charged or to settle', async () => {
    const read = async (id: string) =>
      (await (await fetch(`${gateway.url}/v1/requests/${id}`, { headers: { authorization: `Bearer ${customer.key}` } })).json()) as any;
    const free = await read(ids.wallet_get!);
    expect(free).to.deep.include({ billable: false, settled_at: null });
    expect(free.hold).to.include({ outcome: 'none', amount: null });
    expect(free.charge.total).to.equal('0.000000');
    const paid = await read(ids.messages_create!);
    expect(paid.billable).to.equal(true);
    expect(paid.settled_at).to.be.a('string');
    expect((await read(ids.refused!)).billable).to.equal(true); // refused for the balance, yet a request that could charge
  });
});
