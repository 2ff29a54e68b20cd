import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { estimateChatInput } from '../../src/domain/chat/fields.ts';
import { estimateTokens } from '../../src/domain/passthrough/estimate.ts';
import type { OpenAIChatSimulator } from '../../src/sandbox/openai-chat/server.ts';
import { CHAT_MODEL, chatCost } from '../helpers/chat.ts';
import { fundedCustomer } from '../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } },
  },
];

describe('official openai SDK: chat completions against the gateway and the simulated upstream', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIChatSimulator;
  let backup: OpenAIChatSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    primary = gateway.simulators.get('sandbox-openai-chat') as OpenAIChatSimulator;
    backup = gateway.simulators.get('sandbox-openai-chat-backup') as OpenAIChatSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '1.00' }));
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const client = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const wallet = () => gateway.wallet(customerId);
  const user = (content: string) => [{ role: 'user' as const, content }];
  const billed = (simulator = primary) => simulator.requests.map((r) => r.billed!);

  it('chat.completions.create: the public model, the request id, and the wallet moved by exactly the priced usage', async () => {
    const completion = await client().chat.completions.create({
      model: CHAT_MODEL,
      messages: user('Hello there [[sim cached=2 reasoning=4]]'),
      max_completion_tokens: 200,
    });
    expect(completion.model).to.equal(CHAT_MODEL);
    expect(completion.choices[0]!.message.content).to.be.a('string').and.not.equal('');
    expect(completion._request_id).to.match(/^req_/);
    expect(completion.usage).to.deep.equal(billed()[0]);
    const after = await wallet();
    expect(after.debits).to.equal(chatCost(completion.usage!));
    expect(after.reserved).to.equal('0.000000');
    const [log] = await gateway.requestLogs(`customer_id=${customerId}`);
    expect(log).to.include({
      endpoint: 'chat_completions_create',
      status: 200,
      provider: 'sandbox-openai-chat',
      stream: false,
      usage_estimated: false,
      cost: chatCost(completion.usage!),
    });
    expect(primary.requests[0]!.body.model).to.equal('sandbox-chat');
    expect(primary.requests[0]!.headers.authorization).to.equal('Bearer sandbox');
  });

  it('models.list and /v1/models/pricing list the chat model with its prices', async () => {
    expect((await client().models.list()).data.map((m) => m.id)).to.include(CHAT_MODEL);
    const pricing = (await (await fetch(`${gateway.url}/v1/models/pricing`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    expect(pricing.data.find((m: any) => m.model === CHAT_MODEL)).to.deep.include({
      group: 'chat',
      price: {
        type: 'tokens',
        input_per_mtok: '0.500000',
        output_per_mtok: '1.500000',
        cache_read_per_mtok: '0.250000',
        cache_write_per_mtok: null,
        cache_write_1h_per_mtok: null,
        web_search_per_1k_requests: null,
        web_fetch_per_1k_requests: null,
        multipliers: {},
        tiers: [],
      },
    });
  });

  it('a stream without include_usage shows no usage, yet bills the usage the provider reported', async () => {
    const stream = await client().chat.completions.create({ model: CHAT_MODEL, messages: user('Tell me something'), stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.model === CHAT_MODEL && c.choices.length === 1 && !('usage' in c))).to.equal(true);
    expect(chunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).to.equal('Hello from the sandbox model. This answer is');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).to.equal('stop');
    expect((await wallet()).debits).to.equal(chatCost(...billed()));
  });

  it('a stream with include_usage ends with the usage chunk, and the wallet moves by exactly that', async () => {
    const stream = await client().chat.completions.create({
      model: CHAT_MODEL,
      messages: user('Tell me something'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices).to.deep.equal([]);
    expect(last.usage).to.deep.equal(billed()[0]);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).to.equal(true);
    expect((await wallet()).debits).to.equal(chatCost(last.usage!));
  });

  it('tool-call deltas, split mid-JSON, assemble into the tool call (chat.completions.stream)', async () => {
    const runner = client().chat.completions.stream({
      model: CHAT_MODEL,
      messages: user('Weather in Paris? [[sim tool split]]'),
      tools,
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type).to.equal('function');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).to.deep.equal({ location: 'Paris', unit: 'celsius' });
    expect(final.choices[0]!.finish_reason).to.equal('tool_calls');
    expect((await wallet()).debits).to.equal(chatCost(final.usage!));
    expect(primary.requests[0]!.body.tools).to.deep.equal(tools);
  });

  it('a cut stream raises an APIError in the SDK and bills the estimate of what was delivered, exactly', async () => {
    const messages = user('hi [[sim cut=2]]');
    const stream = await client().chat.completions.create({ model: CHAT_MODEL, messages, stream: true, max_tokens: 50 });
    let delivered = '';
    let error: unknown;
    try {
      for await (const chunk of stream) delivered += chunk.choices[0]?.delta.content ?? '';
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).to.equal('The connection to the provider broke; the answer was cut.');
    expect(delivered).to.equal('Hello from');
    const estimate = { prompt_tokens: estimateChatInput({ messages }), completion_tokens: estimateTokens(delivered) };
    expect((await wallet()).debits).to.equal(chatCost(estimate));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}`);
    expect(log).to.include({ usage_estimated: true, interrupted: true, input_tokens: estimate.prompt_tokens, output_tokens: estimate.completion_tokens });
  });

  it('insufficient balance: a 402 before any upstream call, nothing moves', async () => {
    const broke = await gateway.customerWithKey();
    let error: unknown;
    try {
      await client(broke.key).chat.completions.create({ model: CHAT_MODEL, messages: user('hi') });
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(OpenAI.APIError);
    expect(error).to.include({ status: 402, type: 'billing_error', code: 'insufficient_balance' });
    expect(primary.requests).to.have.length(0);
    expect(await gateway.wallet(broke.customerId)).to.include({ debits: '0.000000', reserved: '0.000000' });
  });

  it('wrong group both ways: typed 400s naming the right endpoint', async () => {
    const chatError = async (model: string) => {
      try {
        await client().chat.completions.create({ model, messages: user('hi') });
      } catch (caught) {
        return caught as InstanceType<typeof OpenAI.BadRequestError>;
      }
      throw new Error('expected an error');
    };
    const messagesModel = await chatError('sandbox/claude-haiku');
    expect(messagesModel).to.be.instanceOf(OpenAI.BadRequestError);
    expect(messagesModel).to.include({ code: 'wrong_endpoint', param: 'model' });
    expect(messagesModel.message).to.include('POST /v1/messages');
    expect((await chatError('sandbox/compatible-video')).message).to.include('POST /v1/videos');

    const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const fromMessages = await anthropic.messages.create({ model: CHAT_MODEL, max_tokens: 10, messages: user('hi') }).then(
      () => expect.fail('expected an error'),
      (caught: unknown) => caught as InstanceType<typeof Anthropic.BadRequestError>,
    );
    expect(fromMessages).to.be.instanceOf(Anthropic.BadRequestError);
    expect(fromMessages.message).to.include('POST /v1/chat/completions');
    expect(primary.requests).to.have.length(0);
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it('an upstream 429 or 500 fails over to the next route; a 429 on every route is a typed RateLimitError', async () => {
    primary.next({ error: 429 }, { error: 500 });
    const first = await client().chat.completions.create({ model: CHAT_MODEL, messages: user('one') });
    const second = await client().chat.completions.create({ model: CHAT_MODEL, messages: user('two'), stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of second) usage = chunk.usage ?? usage;
    expect(primary.requests).to.have.length(2);
    expect(backup.requests).to.have.length(2);
    expect((await wallet()).debits).to.equal(chatCost(first.usage!, usage!));

    let limited: unknown;
    try {
      await client().chat.completions.create({ model: CHAT_MODEL, messages: user('hi [[sim error=429]]') });
    } catch (caught) {
      limited = caught;
    }
    expect(limited).to.be.instanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).to.equal('1');
    expect((await wallet()).debits).to.equal(chatCost(first.usage!, usage!)); // the refusal cost nothing
  });
});
