import { expect } from 'chai';
import type { OpenAIChatSimulator } from '../../../src/sandbox/openai-chat/server.ts';
import { CHAT_MODEL, chatCost } from '../../helpers/chat.ts';
import { eventually } from '../../helpers/eventually.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { parseSse } from '../../helpers/upstream-contract.ts';

/**
 * The sample catalogue with short first-byte and idle timeouts on the primary chat route, to
 * exercise them; the whole answer keeps its 30 s (50 concurrent streams on a loaded CI machine may
 * take seconds to finish).
 */
function catalogueWithShortTimeouts(): string {
  return sampleCatalogueWith({
    provider: { 'sandbox-openai-chat': { timeouts: { connect_ms: 2000, first_byte_ms: 3000, response_ms: 30000, idle_ms: 1500 } } },
  });
}

const chunksOf = (text: string) => parseSse(text).map((f) => (f.data === '[DONE]' ? '[DONE]' : JSON.parse(f.data)));

describe('chat completions: billing, streaming and routing edges', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: OpenAIChatSimulator;
  let backup: OpenAIChatSimulator;
  let key: string;
  let customerId: string;
  let logged: number;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: catalogueWithShortTimeouts(), env: { GRANTS: 'false' } }); // per-request reservations; the grant path: test/integration/ledger/grants.test.ts
    primary = gateway.simulators.get('sandbox-openai-chat') as OpenAIChatSimulator;
    backup = gateway.simulators.get('sandbox-openai-chat-backup') as OpenAIChatSimulator;
  });
  beforeEach(async () => {
    logged = 0;
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '1.00' }));
  });
  after(async () => gateway?.close());

  const send = (body: Record<string, unknown> | string, init: RequestInit = {}, path = '/v1/chat/completions') =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
  const ask = (content: string, extra: Record<string, unknown> = {}) => send({ model: CHAT_MODEL, messages: [{ role: 'user', content }], ...extra });
  const wallet = () => gateway.wallet(customerId);
  const lastLog = async () => (await gateway.requestLogs(`customer_id=${customerId}`, ++logged))[0];
  const journal = async () => {
    await gateway.settled();
    return (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data;
  };
  /** Every reservation ended exactly once, nothing is held, and the books balance. */
  const settledOnce = async () => {
    const resolutions = (await journal()).filter((e: any) => e.kind === 'settle' || e.kind === 'release');
    expect(new Set(resolutions.map((e: any) => e.reservation_ref)).size).to.equal(resolutions.length);
    expect((await wallet()).reserved).to.equal('0.000000');
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    return resolutions;
  };

  it('JSON: rewrites only model, bills prompt, cached prompt and output (reasoning inside) exactly', async () => {
    const response = await ask('Hello [[sim cached=3 reasoning=7]]', { max_completion_tokens: 100 });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-request-id')).to.match(/^req_/);
    const answer = (await response.json()) as any;
    expect(answer.model).to.equal(CHAT_MODEL);
    const billed = primary.requests[0]!.billed!;
    expect(answer.usage).to.deep.equal(billed);
    expect(billed.prompt_tokens_details.cached_tokens).to.equal(3);
    expect((await wallet()).debits).to.equal(chatCost(billed));
    expect(await lastLog()).to.include({
      endpoint: 'chat_completions_create',
      status: 200,
      provider: 'sandbox-openai-chat',
      stream: false,
      usage_estimated: false,
      input_tokens: billed.prompt_tokens - 3,
      cache_read_tokens: 3,
      output_tokens: billed.completion_tokens,
      cost: chatCost(billed),
    });
    await settledOnce();
  });

  it('streams without the usage chunk the client did not ask for, and bills the usage it hid', async () => {
    const text = await (await ask('Hello', { stream: true })).text();
    const chunks = chunksOf(text);
    expect(chunks.at(-1)).to.equal('[DONE]');
    expect(text).to.not.include('usage');
    expect(chunks.slice(0, -1).every((c: any) => c.model === CHAT_MODEL && c.choices.length === 1)).to.equal(true);
    expect(primary.requests[0]!.body.stream_options).to.deep.equal({ include_usage: true });
    const billed = primary.requests[0]!.billed!;
    expect((await wallet()).debits).to.equal(chatCost(billed));
    expect(await lastLog()).to.include({ stream: true, usage_estimated: false, output_tokens: billed.completion_tokens });
    await settledOnce();
  });

  it('streams the usage chunk to a client that asked, and bills exactly what it shows', async () => {
    const chunks = chunksOf(await (await ask('Hello', { stream: true, stream_options: { include_usage: true, include_obfuscation: false } })).text());
    const usageChunk = chunks.at(-2);
    expect(usageChunk.choices).to.deep.equal([]);
    expect(chunks.slice(0, -2).every((c: any) => c.usage === null)).to.equal(true);
    expect(primary.requests[0]!.body.stream_options).to.deep.equal({ include_usage: true, include_obfuscation: false });
    expect((await wallet()).debits).to.equal(chatCost(usageChunk.usage));
    await settledOnce();
  });

  it('reserves the output bound times n, and refuses a balance short of it before any upstream call', async () => {
    // 0.000100 covers the input, not 3 x 40 output tokens at 1.50 per million (0.000180).
    const poor = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${poor.customerId}/credits`, { amount: '0.000100', reference: 'small' });
    const as = (body: Record<string, unknown>) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${poor.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'hi' }], ...body }),
      });
    const refused = await as({ n: 3, max_completion_tokens: 40 });
    expect(refused.status).to.equal(402);
    expect(((await refused.json()) as any).error).to.include({ type: 'billing_error', code: 'insufficient_balance' });
    expect(primary.requests).to.have.length(0);
    const ok = await as({ n: 3, max_completion_tokens: 10 });
    expect(ok.status).to.equal(200);
    const answer = (await ok.json()) as any;
    expect(answer.choices).to.have.length(3);
    expect((await gateway.wallet(poor.customerId)).debits).to.equal(chatCost(answer.usage));
    // No limit at all: the default 16384 output tokens (0.024576) are more than this customer has.
    expect((await as({})).status).to.equal(402);
    expect(primary.requests).to.have.length(1);
  });

  it('sends callers to the right endpoint both ways, and checks only the fields it reads', async () => {
    const wrong = async (response: Response) => ((await response.json()) as any).error;
    expect(await wrong(await send({ model: 'sandbox/claude-haiku', messages: [{ role: 'user', content: 'hi' }] }))).to.include({
      code: 'wrong_endpoint',
      param: 'model',
      message: '`sandbox/claude-haiku` is a messages model: call POST /v1/messages instead.',
    });
    expect(await wrong(await send({ model: 'sandbox/seedance', messages: [{ role: 'user', content: 'hi' }] }))).to.include({
      message: '`sandbox/seedance` is a video model: call POST /v1/videos instead.',
    });
    const onMessages = await send({ model: CHAT_MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, {}, '/v1/messages');
    expect(onMessages.status).to.equal(400);
    expect((await onMessages.json()) as any).to.deep.include({
      type: 'error',
      error: { type: 'invalid_request_error', message: '`sandbox/chat-model` is a chat model: call POST /v1/chat/completions instead.' },
    });

    const raw = (field: string) => `{"model":"${CHAT_MODEL}","messages":[{"role":"user","content":"hi"}],${field}}`;
    for (const [body, param] of [
      [raw('"max_tokens":9223372036854775808'), 'max_tokens'],
      [raw('"max_completion_tokens":1e400'), 'max_completion_tokens'],
      [raw('"max_completion_tokens":1000001'), 'max_completion_tokens'],
      [raw('"n":1000'), 'n'],
      [raw('"stream":"yes"'), 'stream'],
      [`{"model":"${CHAT_MODEL}","messages":[]}`, 'messages'],
      [`{"model":"${CHAT_MODEL}","messages":[{"content":"no role"}]}`, 'messages[0].role'],
    ] as const) {
      const response = await send(body);
      expect(response.status, body).to.equal(400);
      expect(((await response.json()) as any).error).to.include({ type: 'invalid_request_error', param });
    }
    expect(primary.requests).to.have.length(0);
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it("passes a provider's refusals on (an unknown field, stream_options without stream) without failover, charging nothing", async () => {
    const response = await ask('hi', { thinking: { type: 'enabled' } });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as any).error).to.include({ message: 'Unrecognized request argument supplied: thinking', type: 'invalid_request_error' });
    // stream_options on a non-streaming request goes as sent, and the provider refuses it as it would have.
    const misplaced = await ask('hi', { stream_options: { include_usage: true } });
    expect(misplaced.status).to.equal(400);
    expect(((await misplaced.json()) as any).error).to.include({
      param: 'stream_options',
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    });
    expect(primary.requests[1]!.raw).to.equal(
      JSON.stringify({ model: 'sandbox-chat', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } }),
    );
    expect(backup.requests).to.have.length(0);
    const releases = await settledOnce();
    expect(releases.map((e: any) => e.kind)).to.deep.equal(['release', 'release']);
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it('fails over on 429, 500 or a slow first byte before anything was sent; passes 429 and retry-after when every route refuses', async () => {
    primary.next({ error: 429 }, { error: 500 }, { firstByteMs: 4000 });
    for (let i = 0; i < 3; i++) {
      expect((await ask(`hi ${i}`, { stream: i === 2 })).status).to.equal(200);
      expect((await lastLog()).provider).to.equal('sandbox-openai-chat-backup');
    }
    expect((await wallet()).debits).to.equal(chatCost(...backup.requests.map((r) => r.billed!)));
    const limited = await ask('hi [[sim error=429]]');
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('1');
    expect(((await limited.json()) as any).error).to.include({ type: 'requests' });
    expect(primary.requests).to.have.length(4);
    expect(backup.requests).to.have.length(4);
    await settledOnce();
  });

  it('never fails over once the stream started: a cut or idle stream ends with an error frame and settles the estimate', async () => {
    primary.next({ cutAfter: 3 }, { gapMs: 3000 });
    const cut = chunksOf(await (await ask('hi', { stream: true })).text());
    expect(cut.filter((c: any) => c.choices?.[0]?.delta?.content)).to.have.length(3);
    expect(cut.at(-1)).to.deep.equal({
      error: { message: 'The connection to the provider broke; the answer was cut.', type: 'api_error', param: null, code: null },
    });
    const idle = chunksOf(await (await ask('hi', { stream: true })).text());
    expect(idle.at(-1).error.message).to.equal('The provider stopped sending; the answer was cut.');
    expect(backup.requests).to.have.length(0);
    const settles = (await settledOnce()).filter((e: any) => e.kind === 'settle');
    expect(settles.map((e: any) => e.purpose.ending).sort()).to.deep.equal(['idle_timeout', 'upstream_cut']);
    expect(settles.every((e: any) => e.purpose.estimated === true && Number(e.amount) > 0)).to.equal(true);
  });

  it("relays a provider's error frame after the 200 and settles what was delivered", async () => {
    const chunks = chunksOf(await (await ask('hi [[sim error_event=2]]', { stream: true })).text());
    expect(chunks.at(-1)).to.deep.equal({
      error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null },
    });
    const [settle] = await settledOnce();
    expect(settle.purpose).to.include({ ending: 'error_event', estimated: true });
    expect((await lastLog()).usage_estimated).to.equal(true);
  });

  it('aborts the provider when the client goes away mid-stream, and settles the delivered estimate once', async () => {
    const response = await ask('long [[sim gap_ms=50 deltas=200]]', { stream: true });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"content":"Hello"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await eventually(() => expect(primary.abortedStreams).to.equal(1));
    const log = await lastLog();
    expect(log).to.include({ usage_estimated: true, stream: true, interrupted: true });
    expect(log.output_tokens).to.be.lessThan(200);
    const [settle] = await settledOnce();
    expect(settle.purpose.ending).to.equal('client_gone');
  });

  it('estimates usage a provider did not report (JSON and stream), charges more than nothing and marks it', async () => {
    expect((await ask('Hello [[sim no_usage]]')).status).to.equal(200);
    expect(await lastLog()).to.include({ usage_estimated: true });
    await (await ask('Hello [[sim no_usage]]', { stream: true })).text();
    const log = await lastLog();
    expect(log).to.include({ usage_estimated: true, stream: true, interrupted: false });
    expect(Number(log.cost)).to.be.greaterThan(0);
    const settles = (await settledOnce()).filter((e: any) => e.kind === 'settle');
    expect(settles.map((e: any) => e.purpose.estimated)).to.deep.equal([true, true]);
  });

  it('answers 502 and releases when a JSON answer breaks off mid-body', async () => {
    const response = await ask('hi [[sim cut=1]]');
    expect(response.status).to.equal(502);
    expect(((await response.json()) as any).error.type).to.equal('api_error');
    const [release] = await settledOnce();
    expect(release.kind).to.equal('release');
  });

  it('settles 50 concurrent streams from one wallet exactly, and reconciliation passes', async () => {
    // Each stream holds its input plus 16,384 output tokens (no limit asked): 0.0246 at this price,
    // 1.23 for 50 held at once. The 1.00 of beforeEach covers about 40, so on a loaded machine where
    // all 50 overlap the rest would rightly be refused; fund them all.
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund 50 streams' });
    const texts = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(`stream ${i} [[sim split]]`, { stream: true }).then((r) => r.text())));
    expect(texts.filter((t) => !t.endsWith('data: [DONE]\n\n'))).to.deep.equal([]);
    expect(await gateway.requestLogs(`customer_id=${customerId}`, 50)).to.have.length(50);
    expect((await wallet()).debits).to.equal(chatCost(...primary.requests.map((r) => r.billed!)));
    expect((await settledOnce()).filter((e: any) => e.kind === 'settle')).to.have.length(50);
  });
});
