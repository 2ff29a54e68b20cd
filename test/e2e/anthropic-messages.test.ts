import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import type { AnthropicSimulator } from '../../src/sandbox/anthropic/server.ts';
import { fundedCustomer } from '../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const HAIKU = 'sandbox/claude-haiku'; // no free quota: every token is paid, at 1 and 5 micro-units
const cost = (usage: { input_tokens: number; output_tokens: number }) => BigInt(usage.input_tokens) * 1n + BigInt(usage.output_tokens) * 5n;

describe('official @anthropic-ai/sdk against the gateway and the simulated upstream', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: AnthropicSimulator;
  let backup: AnthropicSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    primary = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    backup = gateway.simulators.get('sandbox-anthropic-backup') as AnthropicSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '1.00' }));
  });
  after(async () => gateway?.close());

  const client = (options: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, ...options });
  const wallet = () => gateway.wallet(customerId);
  const micros = (decimal: string) => BigInt(decimal.replace('.', ''));
  const logs = (atLeast: number) => gateway.requestLogs(`customer_id=${customerId}`, atLeast);

  it('messages.create: answers with the public model id and moves the wallet by exactly the priced usage', async () => {
    const message = await client().messages.create({ model: HAIKU, max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(message.model).to.equal(HAIKU);
    expect(message.content[0]).to.include({ type: 'text' });
    expect(message._request_id).to.match(/^req_/);
    const after = await wallet();
    expect(micros(after.debits)).to.equal(cost(message.usage));
    expect(after.reserved).to.equal('0.000000');
    const [log] = await logs(1);
    expect(log).to.include({
      endpoint: 'messages_create',
      status: 200,
      provider: 'sandbox-anthropic',
      input_tokens: message.usage.input_tokens,
      output_tokens: message.usage.output_tokens,
      stream: false,
      usage_estimated: false,
    });
    expect(micros(log.cost)).to.equal(cost(message.usage));
    expect(log.upstream_request_id).to.match(/^req_/);
    expect(primary.requests[0]!.body.model).to.equal('claude-haiku-4-5-20251001');
  });

  it('messages.stream().finalMessage() and a tool-use stream split mid-JSON', async () => {
    const final = await client()
      .messages.stream({ model: HAIKU, max_tokens: 100, messages: [{ role: 'user', content: 'Tell me something' }] })
      .finalMessage();
    expect(final.model).to.equal(HAIKU);
    expect(final.content[0]!.type).to.equal('text');
    const tool = await client()
      .messages.stream({
        model: HAIKU,
        max_tokens: 100,
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
        messages: [{ role: 'user', content: 'Weather in Paris? [[sim tool split thinking]]' }],
      })
      .finalMessage();
    expect(tool.stop_reason).to.equal('tool_use');
    const toolUse = tool.content.find((b) => b.type === 'tool_use');
    expect(toolUse).to.deep.include({ name: 'get_weather', input: { location: 'Paris', unit: 'celsius' } });
    expect(tool.content[0]!.type).to.equal('thinking');
    const after = await wallet();
    expect(micros(after.debits)).to.equal(cost(final.usage) + cost(tool.usage));
    expect((await logs(2)).every((l: { stream: boolean; usage_estimated: boolean }) => l.stream && !l.usage_estimated)).to.equal(true);
  });

  it('beta.messages.create (?beta=true), both auth styles, headers as the upstream saw them', async () => {
    await client().beta.messages.create({
      model: HAIKU,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
      betas: ['interleaved-thinking-2025-05-14'],
    });
    await client({ apiKey: null, authToken: key }).messages.create({ model: HAIKU, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    await client({ defaultHeaders: { 'anthropic-version': '2023-01-01' } }).messages.create({
      model: HAIKU,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const raw = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: HAIKU, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(raw.status).to.equal(200);
    const seen = primary.requests.map((r) => r.headers);
    expect(seen.map((h) => h['anthropic-beta'])).to.deep.equal(['interleaved-thinking-2025-05-14', undefined, undefined, undefined]);
    // The SDK sends its own version (passed through as sent); a client that sends none gets 2023-06-01.
    const sdkVersion = seen[0]!['anthropic-version'];
    expect(sdkVersion).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(seen.map((h) => h['anthropic-version'])).to.deep.equal([sdkVersion, sdkVersion, '2023-01-01', '2023-06-01']);
    for (const headers of seen) {
      expect(headers['x-api-key']).to.equal('sandbox'); // the provider credential, set by the gateway
      expect(headers.authorization).to.equal(undefined);
      expect(JSON.stringify(headers)).to.not.include(key);
    }
    expect(JSON.stringify(primary.requests.map((r) => r.body))).to.not.include(key);
  });

  it("raises the SDK's typed errors for 401, 402, 404, 429 and 529, and a clear one for chat models", async () => {
    const attempt = async (c: Anthropic, model: string, content = 'hi') => {
      try {
        await c.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content }] });
      } catch (error) {
        return error as InstanceType<typeof Anthropic.APIError>;
      }
      throw new Error('expected an error');
    };
    const unauthorized = await attempt(client({ apiKey: 'sk-gw-wrong' }), HAIKU);
    expect(unauthorized).to.be.instanceOf(Anthropic.AuthenticationError);
    const notFound = await attempt(client(), 'nobody/nothing');
    expect(notFound).to.be.instanceOf(Anthropic.NotFoundError);
    expect((notFound.error as any).error.type).to.equal('not_found_error');
    const limited = await attempt(client(), HAIKU, 'hi [[sim error=429]]');
    expect(limited).to.be.instanceOf(Anthropic.RateLimitError);
    const overloaded = await attempt(client(), 'sandbox/claude-sonnet', 'hi [[sim error=529]]');
    expect(overloaded.status).to.equal(529);
    expect((overloaded.error as any).error.type).to.equal('overloaded_error');
    expect(backup.requests).to.have.length(1); // both routes were tried before giving up
    const chat = await attempt(client(), 'sandbox/chat-model');
    expect(chat).to.be.instanceOf(Anthropic.BadRequestError);
    expect(chat.message).to.include('/v1/chat/completions');

    const broke = await gateway.customerWithKey();
    const payment = await attempt(client({ apiKey: broke.key }), HAIKU);
    expect(payment.status).to.equal(402);
    expect((payment.error as any).error.type).to.equal('billing_error');
    expect(primary.requests.filter((r) => JSON.stringify(r.body).includes(broke.key))).to.have.length(0);
    const after = await wallet();
    expect(after.reserved).to.equal('0.000000');
    expect(after.debits).to.equal('0.000000'); // failed requests cost nothing
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
});
