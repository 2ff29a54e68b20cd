import { expect } from 'chai';
import { estimateResponsesInput } from '../../../src/domain/responses/fields.ts';
import { estimateTokens } from '../../../src/domain/passthrough/estimate.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems } from '../../helpers/responses.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { parseSse } from '../../helpers/upstream-contract.ts';

const eventsOf = (text: string): Array<Record<string, any>> => parseSse(text).map((f) => ({ event: f.event, ...(JSON.parse(f.data) as Record<string, any>) }));

describe('responses: passthrough, billing from the terminal usage, errors Codex reads', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let key: string;
  let customerId: string;
  let logged: number;

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'false' } }); // per-request reservations; grants: the large-hold test below
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
  });
  beforeEach(async () => {
    logged = 0;
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '5.00' }));
  });
  afterEach(() => {
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  const send = (body: Record<string, unknown> | string, path = '/v1/responses', as = key) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const ask = (input: unknown, extra: Record<string, unknown> = {}) => send({ model: RESPONSES_MODEL, input, ...extra });
  const wallet = () => gateway.wallet(customerId);
  const lastLog = async () => (await gateway.requestLogs(`customer_id=${customerId}`, ++logged))[0];
  const billed = (simulator = primary) => simulator.exchanges.filter((e) => e.billed).map((e) => e.billed!);
  /** Every reservation ended exactly once, nothing is held, and the books balance. */
  const settledOnce = async () => {
    await gateway.settled();
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data;
    const resolutions = journal.filter((e: any) => e.kind === 'settle' || e.kind === 'release');
    expect(new Set(resolutions.map((e: any) => e.reservation_ref)).size).to.equal(resolutions.length);
    expect((await wallet()).reserved).to.equal('0.000000');
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    return resolutions;
  };

  it('JSON: only model is spliced into the bytes; cached, cache-write, reasoning and output billed each at its rate', async () => {
    const raw = `{"model" : "${RESPONSES_MODEL}","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hello [[sim cached=3 cache_write=2 reasoning=5]]"}]},{"type":"item_reference","id":"msg_abc"}],"store":false,"include":["reasoning.encrypted_content"],"max_output_tokens":300,"x_future_field":{"n":1.50}}`;
    const response = await send(raw);
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-request-id')).to.match(/^req_/);
    const answer = (await response.json()) as any;
    expect(primary.exchanges[0]!.raw).to.equal(raw.replace(`"model" : "${RESPONSES_MODEL}"`, '"model" : "sandbox-responses"'));
    expect(answer.model).to.equal(RESPONSES_MODEL);
    expect(answer.status).to.equal('completed');
    expect(answer.output.map((i: any) => i.type)).to.deep.equal(['reasoning', 'message']);
    expect(answer.output[0].encrypted_content).to.match(/^gAAAA/);
    const usage = billed()[0]!;
    expect(answer.usage).to.deep.equal(usage);
    expect(usage.input_tokens_details).to.deep.equal({ cached_tokens: 3, cache_write_tokens: 2 });
    expect(usage.output_tokens_details.reasoning_tokens).to.equal(5);
    expect((await wallet()).debits).to.equal(responsesCost(usage));
    expect(await lastLog()).to.include({
      endpoint: 'responses_create',
      status: 200,
      provider: 'sandbox-openai-responses',
      stream: false,
      usage_estimated: false,
      input_tokens: usage.input_tokens - 5,
      cache_read_tokens: 3,
      cache_write_tokens: 2,
      output_tokens: usage.output_tokens,
      cost: responsesCost(usage),
    });
    await settledOnce();
  });

  it('SSE: relayed frame for frame (unknown events and sequence_number included), model public, billed from response.completed', async () => {
    const response = await ask('Tell me [[sim unknown_event split tool]]', {
      stream: true,
      tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }],
    });
    expect(response.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    const text = await response.text();
    const upstream = primary.exchanges[0]!.answer;
    expect(text).to.equal(upstream.replaceAll('"model":"sandbox-responses"', `"model":"${RESPONSES_MODEL}"`));
    const events = eventsOf(text);
    expect(events.map((e) => e.sequence_number)).to.deep.equal(events.map((_, i) => i));
    expect(events.every((e) => e.event === e.type)).to.equal(true);
    expect(events.map((e) => e.type)).to.include.members(['response.sandbox_note.added', 'response.function_call_arguments.delta']);
    const completed = events.at(-1)!;
    expect(completed.type).to.equal('response.completed');
    expect(completed.response.model).to.equal(RESPONSES_MODEL);
    expect((await wallet()).debits).to.equal(responsesCost(completed.response.usage));
    expect(await lastLog()).to.include({ stream: true, usage_estimated: false, interrupted: false, output_tokens: completed.response.usage.output_tokens });
    await settledOnce();
  });

  it('bills response.incomplete and response.failed from their usage, and a service tier at its multiplier', async () => {
    const incomplete = eventsOf(
      await (await ask('Long story [[sim deltas=40]]', { stream: true, max_output_tokens: 16, reasoning: { effort: 'low' } })).text(),
    );
    expect(incomplete.at(-1)!.type).to.equal('response.incomplete');
    expect(incomplete.at(-1)!.response.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
    const failed = eventsOf(await (await ask('Hi [[sim failed]]', { stream: true })).text());
    expect(failed.at(-1)!.type).to.equal('response.failed');
    const priority = (await (await ask('Fast please', { service_tier: 'priority' })).json()) as any;
    expect(priority.service_tier).to.equal('priority');
    expect(((await (await ask('Slow is fine', { service_tier: 'flex' })).json()) as any).service_tier).to.equal('flex');
    const [a, b, c, d] = billed();
    expect((await wallet()).debits).to.equal(responsesCost(a!, b!, [c!, 'priority'], [d!, 'flex']));
    const logs = await gateway.requestLogs(`customer_id=${customerId}`, 4);
    expect(logs.map((l: any) => l.usage_estimated)).to.deep.equal([false, false, false, false]);
    expect(logs[1].usage_detail).to.deep.include({ service_tier: 'priority', multiplier: 'priority x2' });
    expect(logs[0].usage_detail).to.deep.include({ service_tier: 'flex', multiplier: 'flex x0.5' });
    await settledOnce();
  });

  it('holds the catalogue output cap without max_output_tokens: refused as insufficient_quota before any call, accepted with a smaller cap', async () => {
    // 32000 output tokens at 10.00 per million: 0.32 held; this customer has 0.10.
    const poor = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${poor.customerId}/credits`, { amount: '0.10', reference: 'small' });
    const refused = await send({ model: RESPONSES_MODEL, input: 'hi' }, '/v1/responses', poor.key);
    expect(refused.status).to.equal(402);
    expect(((await refused.json()) as any).error).to.include({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(primary.exchanges).to.have.length(0);
    const ok = await send({ model: RESPONSES_MODEL, input: 'hi', max_output_tokens: 1000 }, '/v1/responses', poor.key);
    expect(ok.status).to.equal(200);
    expect((await gateway.wallet(poor.customerId)).debits).to.equal(responsesCost(((await ok.json()) as any).usage));
  });

  it('a cut stream ends with a response.failed event Codex retries, and settles an estimate marked as such (never zero)', async () => {
    const input = 'Hello there [[sim cut=3]]';
    const events = eventsOf(await (await ask(input, { stream: true })).text());
    const last = events.at(-1)!;
    expect(last.type).to.equal('response.failed');
    expect(last.sequence_number).to.equal(events.at(-2)!.sequence_number + 1);
    expect(last.response).to.include({ id: events[0]!.response.id, status: 'failed', model: RESPONSES_MODEL });
    expect(last.response.error).to.deep.equal({ code: 'server_error', message: 'The connection to the provider broke; the answer was cut.' });
    const delivered = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta as string);
    expect(delivered).to.have.length(3);
    const estimate = { input_tokens: estimateResponsesInput({ input }), output_tokens: estimateTokens(delivered.join('')) };
    expect((await wallet()).debits).to.equal(responsesCost(estimate));
    expect(await lastLog()).to.include({
      usage_estimated: true,
      interrupted: true,
      input_tokens: estimate.input_tokens,
      output_tokens: estimate.output_tokens,
    });
    const [settle] = await settledOnce();
    expect(settle.purpose).to.include({ ending: 'upstream_cut', estimated: true });
    expect(backup.exchanges).to.have.length(0);
  });

  it("estimates a terminal event without usage and relays a provider's error event, both marked estimated", async () => {
    await (await ask('Hi [[sim no_usage]]', { stream: true })).text();
    expect(await lastLog()).to.include({ usage_estimated: true, interrupted: false });
    const events = eventsOf(await (await ask('Hi [[sim error_event=2]]', { stream: true })).text());
    expect(events.at(-1)).to.deep.include({ type: 'error', code: 'server_error' });
    expect(await lastLog()).to.include({ usage_estimated: true, interrupted: true });
    const settles = (await settledOnce()).filter((e: any) => e.kind === 'settle');
    expect(settles.every((e: any) => e.purpose.estimated === true && Number(e.amount) > 0)).to.equal(true);
  });

  it('sends callers to the right endpoint both ways, and checks only the fields it reads', async () => {
    const error = async (response: Response) => ((await response.json()) as any).error;
    expect(await error(await send({ model: 'sandbox/chat-model', input: 'hi' }))).to.include({
      code: 'wrong_endpoint',
      message: '`sandbox/chat-model` is a chat model: call POST /v1/chat/completions instead.',
    });
    expect((await error(await send({ model: 'sandbox/claude-haiku', input: 'hi' }))).message).to.include('POST /v1/messages');
    const onChat = await send({ model: RESPONSES_MODEL, messages: [{ role: 'user', content: 'hi' }] }, '/v1/chat/completions');
    expect(await error(onChat)).to.include({ message: '`sandbox/responses-model` is a responses model: call POST /v1/responses instead.' });
    for (const [body, param] of [
      [{ model: RESPONSES_MODEL, input: 'hi', stream: 'yes' }, 'stream'],
      [{ model: RESPONSES_MODEL, input: 'hi', max_output_tokens: 32001 }, 'max_output_tokens'],
      [{ model: RESPONSES_MODEL, input: 'hi', max_output_tokens: 0 }, 'max_output_tokens'],
      [{ input: 'hi' }, 'model'],
    ] as const) {
      const response = await send(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(await error(response)).to.include({ type: 'invalid_request_error', param });
    }
    expect(primary.exchanges).to.have.length(0);
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it('fails over on 429 or 500 before the first byte; every route limited is rate_limit_exceeded with the wait, as Codex reads it', async () => {
    primary.next({ error: 429 }, { error: 500 });
    expect((await ask('one')).status).to.equal(200);
    expect((await ask('two', { stream: true })).status).to.equal(200);
    expect((await gateway.requestLogs(`customer_id=${customerId}`, 2)).map((l: any) => l.provider)).to.deep.equal([
      'sandbox-openai-responses-backup',
      'sandbox-openai-responses-backup',
    ]);
    const limited = await ask('hi [[sim error=429]]');
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('1');
    expect(((await limited.json()) as any).error).to.include({
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached for requests. Please try again in 1s.',
    });
    expect((await wallet()).debits).to.equal(responsesCost(...billed(backup)));
    await settledOnce();
  });

  it('a key\'s rate limit answers rate_limit_exceeded with "try again in Ns" and retry-after', async () => {
    const limitedKey = (await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, { limits: { requests_per_minute: 1 } })).body;
    expect((await send({ model: RESPONSES_MODEL, input: 'one' }, '/v1/responses', limitedKey.key)).status).to.equal(200);
    const refused = await send({ model: RESPONSES_MODEL, input: 'two' }, '/v1/responses', limitedKey.key);
    expect(refused.status).to.equal(429);
    const wait = refused.headers.get('retry-after');
    expect(Number(wait)).to.be.within(1, 60);
    const body = (await refused.json()) as any;
    expect(body.error.code).to.equal('rate_limit_exceeded');
    expect(body.error.message).to.match(new RegExp(`Please try again in ${wait}s\\.$`));
  });
});
