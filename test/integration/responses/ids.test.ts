import { expect } from 'chai';
import { estimateResponsesInput } from '../../../src/domain/responses/fields.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems, responsesMicros } from '../../helpers/responses.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { formatMicros } from '../../../src/shared/money.ts';

describe('responses: ids owned by their customer, chained requests pinned to their route', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let owner: { key: string; customerId: string };
  let other: { key: string; customerId: string };

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'false' } });
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    owner = await fundedCustomer(gateway, { balance: '5.00' });
    other = await fundedCustomer(gateway, { balance: '5.00' });
  });
  afterEach(async () => {
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const call = (method: string, path: string, as = owner.key, body?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const create = async (body: Record<string, unknown>, as = owner.key) => {
    const response = await call('POST', '/v1/responses', as, { model: RESPONSES_MODEL, ...body });
    return { status: response.status, body: (await response.json()) as any };
  };
  const journal = async (customerId: string) => {
    await gateway.settled();
    return (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
  };

  it('records each relayed id with its customer, key and route, and nothing of its content', async () => {
    const first = await create({ input: 'Remember the number 7.' });
    const streamed = await call('POST', '/v1/responses', owner.key, { model: RESPONSES_MODEL, input: 'Stream it', stream: true });
    await streamed.text();
    await gateway.settled();
    const rows = await gateway.db('response_ids').orderBy('created_at');
    expect(rows.map((r: any) => r.response_id)).to.deep.equal([...primary.responses.keys()]);
    expect(rows[0]).to.include({
      response_id: first.body.id,
      customer_id: owner.customerId,
      provider_id: 'sandbox-openai-responses',
      model_id: RESPONSES_MODEL,
      upstream_model: 'sandbox-responses',
      context_tokens: BigInt(first.body.usage.total_tokens),
    });
    expect(Object.keys(rows[0]).sort()).to.deep.equal(
      ['context_tokens', 'created_at', 'customer_id', 'key_id', 'model_id', 'provider_id', 'request_id', 'response_id', 'upstream_model'].sort(),
    );
  });

  it('chains to the route that served the response, never another (even when it fails), with its context in the hold', async () => {
    primary.next({ error: 429 }); // the first response is served by the backup route
    const first = await create({ input: 'Remember the number 7.' });
    expect(first.status).to.equal(200);
    expect(backup.responses.has(first.body.id)).to.equal(true);
    const second = await create({ input: 'Which number?', previous_response_id: first.body.id });
    expect(second.status).to.equal(200);
    expect(backup.exchanges.at(-1)!.body!.previous_response_id).to.equal(first.body.id);
    expect(primary.exchanges).to.have.length(1); // only the refused first attempt
    // The hold: the body's estimate plus the chained response's input and output, at the dearest rate and premium.
    const context = first.body.usage.total_tokens;
    const estimate = estimateResponsesInput({ input: 'Which number?' }) + context;
    const hold = responsesMicros({ input_tokens: estimate, output_tokens: 32_000, input_tokens_details: { cache_write_tokens: estimate } }, 'priority');
    const reserves = (await journal(owner.customerId)).filter((e: any) => e.kind === 'reserve');
    expect(reserves.map((e: any) => e.amount)).to.include(formatMicros(hold));
    // The pinned route fails: the answer is its failure, not a failover to an account that does not know the id.
    backup.next({ error: 500 });
    const failed = await create({ input: 'Again?', previous_response_id: second.body.id });
    expect(failed.status).to.equal(500);
    expect(primary.exchanges).to.have.length(1);
    const usages = backup.exchanges.filter((e) => e.billed).map((e) => e.billed!);
    expect((await gateway.wallet(owner.customerId)).debits).to.equal(responsesCost(...usages));
  });

  it("answers 404 for another customer's response on every call, before any provider is asked", async () => {
    const mine = await create({ input: 'Mine [[sim queued_ms=60000]]', background: true });
    const before = primary.exchanges.length;
    const notFound = async (response: Response, param: string) => {
      expect(response.status).to.equal(404);
      expect(((await response.json()) as any).error).to.include({ code: 'response_not_found', type: 'invalid_request_error', param });
    };
    await notFound(
      await call('POST', '/v1/responses', other.key, { model: RESPONSES_MODEL, input: 'x', previous_response_id: mine.body.id }),
      'previous_response_id',
    );
    await notFound(await call('GET', `/v1/responses/${mine.body.id}`, other.key), 'response_id');
    await notFound(await call('DELETE', `/v1/responses/${mine.body.id}`, other.key), 'response_id');
    await notFound(await call('POST', `/v1/responses/${mine.body.id}/cancel`, other.key), 'response_id');
    await notFound(await call('GET', `/v1/responses/${mine.body.id}/input_items`, other.key), 'response_id');
    await notFound(
      await call('POST', '/v1/responses/input_tokens', other.key, { model: RESPONSES_MODEL, previous_response_id: mine.body.id }),
      'previous_response_id',
    );
    await notFound(
      await call('POST', '/v1/responses/compact', other.key, { model: RESPONSES_MODEL, previous_response_id: mine.body.id }),
      'previous_response_id',
    );
    await notFound(await call('GET', '/v1/responses/resp_never_relayed'), 'response_id');
    expect(primary.exchanges).to.have.length(before);
    expect((await gateway.wallet(other.customerId)).debits).to.equal('0.000000');
  });

  it('serves its owner (any of its keys) GET, input_items, cancel and DELETE from the route that served it, free', async () => {
    const secondKey = (await gateway.admin('POST', `/admin/v1/customers/${owner.customerId}/api-keys`, {})).body.key as string;
    const done = await create({ input: [{ type: 'message', role: 'user', content: 'Hello there' }] });
    const got = (await (await call('GET', `/v1/responses/${done.body.id}`, secondKey)).json()) as any;
    expect(got).to.deep.include({ id: done.body.id, status: 'completed', model: RESPONSES_MODEL });
    const items = (await (await call('GET', `/v1/responses/${done.body.id}/input_items?limit=10&order=asc`)).json()) as any;
    expect(items.object).to.equal('list');
    expect(items.data[0]).to.deep.include({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] });
    expect(primary.exchanges.at(-1)!.path).to.equal(`/responses/${done.body.id}/input_items`);
    const refused = await call('POST', `/v1/responses/${done.body.id}/cancel`);
    expect(refused.status).to.equal(400);
    expect(((await refused.json()) as any).error.message).to.equal('Only responses created with background=true can be cancelled.');
    const deleted = await call('DELETE', `/v1/responses/${done.body.id}`);
    expect(await deleted.json()).to.deep.equal({ id: done.body.id, object: 'response', deleted: true });
    expect((await call('GET', `/v1/responses/${done.body.id}`)).status).to.equal(404);
    expect(await gateway.db('response_ids').where({ response_id: done.body.id })).to.have.length(0);
    const debits = (await gateway.wallet(owner.customerId)).debits;
    expect(debits).to.equal(responsesCost(primary.exchanges[0]!.billed!));
  });

  it('counts input tokens for free (the chained context included) and bills compact from its usage', async () => {
    const first = await create({ input: 'Remember the number 7.' });
    const counted = await call('POST', '/v1/responses/input_tokens', owner.key, {
      model: RESPONSES_MODEL,
      input: 'And now?',
      previous_response_id: first.body.id,
    });
    expect(counted.status).to.equal(200);
    const count = (await counted.json()) as any;
    expect(count.object).to.equal('response.input_tokens');
    expect(count.input_tokens).to.equal(JSON.parse(primary.exchanges.at(-1)!.answer).input_tokens);
    expect(count.input_tokens).to.be.greaterThan(first.body.usage.total_tokens);
    const compacted = await call('POST', '/v1/responses/compact', owner.key, {
      model: RESPONSES_MODEL,
      input: [{ type: 'message', role: 'user', content: 'Summarize [[sim cached=2]]' }],
    });
    expect(compacted.status).to.equal(200);
    const compaction = (await compacted.json()) as any;
    expect(compaction.object).to.equal('response.compaction');
    expect(compaction.usage).to.deep.equal(primary.exchanges.at(-1)!.billed);
    expect((await gateway.wallet(owner.customerId)).debits).to.equal(responsesCost(first.body.usage, compaction.usage));
    const logs = await gateway.requestLogs(`customer_id=${owner.customerId}`, 3);
    expect(logs.map((l: any) => [l.endpoint, l.cost])).to.deep.equal([
      ['responses_compact', responsesCost(compaction.usage)],
      ['responses_input_tokens', null],
      ['responses_create', responsesCost(first.body.usage)],
    ]);
  });
});
