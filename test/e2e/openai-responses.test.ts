import { expect } from 'chai';
import OpenAI from 'openai';
import type { OpenAIResponsesSimulator } from '../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems } from '../helpers/responses.ts';
import { fundedCustomer } from '../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('official openai SDK: responses against the gateway and the simulated upstream', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '5.00' }));
  });
  afterEach(async () => {
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const client = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const wallet = () => gateway.wallet(customerId);
  const billed = () => primary.exchanges.filter((e) => e.billed).map((e) => e.billed!);

  it('responses.create: the public model, output_text, the request id, and the wallet moved by exactly the priced usage', async () => {
    const response = await client().responses.create({ model: RESPONSES_MODEL, input: 'Hello there [[sim cached=2 reasoning=4]]', max_output_tokens: 500 });
    expect(response.model).to.equal(RESPONSES_MODEL);
    expect(response.output_text).to.equal('Hello from the sandbox model. This answer is');
    expect(response._request_id).to.match(/^req_/);
    expect(response.usage).to.deep.equal(billed()[0]);
    const after = await wallet();
    expect(after.debits).to.equal(responsesCost(response.usage!));
    expect(after.reserved).to.equal('0.000000');
    expect(primary.exchanges[0]!.body!.model).to.equal('sandbox-responses');
  });

  it('models.list and /v1/models/pricing list the responses model with its group and prices', async () => {
    const listed = (await client().models.list()).data.find((m) => m.id === RESPONSES_MODEL) as unknown as Record<string, unknown>;
    expect(listed).to.include({ id: RESPONSES_MODEL, group: 'responses' });
    const pricing = (await (await fetch(`${gateway.url}/v1/models/pricing`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    expect(pricing.data.find((m: any) => m.model === RESPONSES_MODEL)).to.deep.include({
      group: 'responses',
      // Every unit price the key pays (null: not priced), its service-tier multipliers included.
      price: {
        type: 'tokens',
        input_per_mtok: '1.250000',
        output_per_mtok: '10.000000',
        cache_read_per_mtok: '0.125000',
        cache_write_per_mtok: '1.500000',
        cache_write_1h_per_mtok: null,
        web_search_per_1k_requests: null,
        web_fetch_per_1k_requests: null,
        multipliers: { priority: '2', flex: '0.5' },
        // Above 272,000 input tokens: every line at the tier, the cache prices following the input step.
        tiers: [
          {
            above_input_tokens: 272_000,
            input_per_mtok: '2.500000',
            output_per_mtok: '15.000000',
            cache_read_per_mtok: '0.250000',
            cache_write_per_mtok: '3.000000',
            cache_write_1h_per_mtok: null,
          },
        ],
      },
    });
  });

  it('responses.stream: text deltas, a function call assembled, the final response and its usage billed', async () => {
    const stream = client().responses.stream({
      model: RESPONSES_MODEL,
      input: [{ role: 'user', content: 'Weather in Paris? [[sim tool split]]' }],
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    expect(call && call.type === 'function_call' && JSON.parse(call.arguments)).to.deep.equal({ location: 'Paris', unit: 'celsius' });
    expect(types[0]).to.equal('response.created');
    expect(types).to.include('response.function_call_arguments.delta');
    expect(final.model).to.equal(RESPONSES_MODEL);
    expect((await wallet()).debits).to.equal(responsesCost(final.usage!));
  });

  it('create with stream: true iterates every event; retrieve, input_items.list and delete reach the stored response', async () => {
    const stream = await client().responses.create({ model: RESPONSES_MODEL, input: 'Tell me something', stream: true });
    let text = '';
    let id = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') id = event.response.id;
    }
    expect(text).to.equal('Hello from the sandbox model. This answer is');
    const retrieved = await client().responses.retrieve(id);
    expect(retrieved).to.deep.include({ id, status: 'completed', model: RESPONSES_MODEL });
    const items = await client().responses.inputItems.list(id);
    expect(items.data.map((i) => i.type)).to.deep.equal(['message']);
    await client().responses.delete(id);
    const gone = await client()
      .responses.retrieve(id)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(gone).to.be.instanceOf(OpenAI.NotFoundError);
    expect((await wallet()).debits).to.equal(responsesCost(...billed()));
  });

  it('background: create, retrieve until done (the poller settles it), and cancel another: exact wallet moves', async () => {
    const done = await client().responses.create({ model: RESPONSES_MODEL, input: 'Essay [[sim queued_ms=0 running_ms=0]]', background: true });
    expect(done.status).to.equal('queued');
    const parked = await client().responses.create({ model: RESPONSES_MODEL, input: 'Later [[sim queued_ms=60000]]', background: true });
    expect(Number((await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body.reserved)).to.be.greaterThan(0);
    const cancelled = await client().responses.cancel(parked.id);
    expect(cancelled).to.deep.include({ id: parked.id, status: 'cancelled', model: RESPONSES_MODEL });
    await gateway.db('video_tasks').update({ next_poll_at: new Date(0) });
    await gateway.services.videoWorker.processBatch();
    const finished = await client().responses.retrieve(done.id);
    expect(finished.status).to.equal('completed');
    expect(finished.output_text).to.equal('Hello from the sandbox model. This answer is');
    const after = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    expect(after).to.include({ debits: responsesCost(finished.usage!), reserved: '0.000000' });
  });

  it("another customer's key gets NotFoundError for the response, and its chained request costs nothing", async () => {
    const mine = await client().responses.create({ model: RESPONSES_MODEL, input: 'mine' });
    const other = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${other.customerId}/credits`, { amount: '1.00', reference: 'other' });
    const stranger = client(other.key);
    for (const attempt of [
      () => stranger.responses.retrieve(mine.id),
      () => stranger.responses.create({ model: RESPONSES_MODEL, input: 'and?', previous_response_id: mine.id }),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(OpenAI.NotFoundError);
      expect(error).to.include({ code: 'response_not_found' });
    }
    expect((await gateway.wallet(other.customerId)).debits).to.equal('0.000000');
    const chained = await client().responses.create({ model: RESPONSES_MODEL, input: 'and then?', previous_response_id: mine.id });
    expect(chained.previous_response_id).to.equal(mine.id);
  });

  it('errors the SDK types: 402 insufficient_quota, 400 wrong endpoint, 429 RateLimitError with retry-after', async () => {
    const broke = await gateway.customerWithKey();
    const quota = await client(broke.key)
      .responses.create({ model: RESPONSES_MODEL, input: 'hi' })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(quota).to.be.instanceOf(OpenAI.APIError);
    expect(quota).to.include({ status: 402, code: 'insufficient_quota', type: 'insufficient_quota' });
    const wrong = await client()
      .responses.create({ model: 'sandbox/chat-model', input: 'hi' })
      .then(
        () => undefined,
        (caught: unknown) => caught as InstanceType<typeof OpenAI.BadRequestError>,
      );
    expect(wrong).to.be.instanceOf(OpenAI.BadRequestError);
    expect(wrong!.message).to.include('POST /v1/chat/completions');
    const limited = await client()
      .responses.create({ model: RESPONSES_MODEL, input: 'hi [[sim error=429]]' })
      .then(
        () => undefined,
        (caught: unknown) => caught as InstanceType<typeof OpenAI.RateLimitError>,
      );
    expect(limited).to.be.instanceOf(OpenAI.RateLimitError);
    expect(limited!.headers?.get('retry-after')).to.equal('1');
    expect(limited!.code).to.equal('rate_limit_exceeded');
    expect((await wallet()).debits).to.equal('0.000000');
  });
});
