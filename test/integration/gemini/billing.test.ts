// The Gemini API through the gateway against the simulated AI Studio and Vertex AI providers:
// the client's bytes reach the provider unchanged, the customer's key never does, every answer is
// billed exactly from its usageMetadata (the last chunk's in a stream), countTokens is free, and
// every refusal is in Google's shape.
import { expect } from 'chai';
import type { GeminiSimulator } from '../../../src/sandbox/gemini/server.ts';
import { formatMicros } from '../../../src/shared/money.ts';
import { GEMINI_MODEL, geminiCost, geminiMicros } from '../../helpers/gemini.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { parseSse } from '../../helpers/upstream-contract.ts';

describe('Gemini API: passthrough, billing and errors', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let studio: GeminiSimulator;
  let vertex: GeminiSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'false' } });
    studio = gateway.simulators.get('sandbox-gemini') as GeminiSimulator;
    vertex = gateway.simulators.get('sandbox-vertex-gemini') as GeminiSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  const url = (model: string, method: string, query = '') => `${gateway.url}/v1beta/models/${model}:${method}${query}`;
  const post = (target: string, body: string | Record<string, unknown>, headers: Record<string, string> = { 'x-goog-api-key': key }) =>
    fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const debits = async () => (await gateway.wallet(customerId)).debits as string;
  const plus = (a: string, b: string) => (Number(a) + Number(b)).toFixed(6);
  const ask = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }] });

  it('generateContent: the body reaches the provider byte for byte with its own key, and the cached, thought and candidate tokens are billed exactly', async () => {
    const raw = `{"contents":[{"role":"user","parts":[{"text":"Hello [[sim cached=3 reasoning=7]]"}]}],  "safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"generationConfig":{"maxOutputTokens":300,"thinkingConfig":{"thinkingLevel":"LOW","includeThoughts":true},"someFutureField":1.50}}`;
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url(GEMINI_MODEL, 'generateContent'), raw);
    const answer = (await response.json()) as any;
    expect(response.status, JSON.stringify(answer)).to.equal(200);
    expect(answer.modelVersion).to.equal(GEMINI_MODEL);
    expect(answer.candidates[0].content.parts[0].text).to.equal('Hello from the sandbox model. This answer is');
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.raw).to.equal(raw);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.1-pro-preview:generateContent');
    expect(sent!.headers['x-goog-api-key']).to.equal('sandbox');
    expect(JSON.stringify(sent!.headers)).not.to.include(key);
    expect(answer.usageMetadata).to.include({ cachedContentTokenCount: 3, thoughtsTokenCount: 7 });
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=gemini_generate_content`);
    expect(log).to.include({
      model: GEMINI_MODEL,
      status: 200,
      usage_estimated: false,
      cache_read_tokens: 3,
      output_tokens: sent!.billed!.candidatesTokenCount + 7,
    });
  });

  it('accepts the key as ?key= and as a bearer token, and never logs the query string', async () => {
    const viaQuery = await post(url('gemini-3.1-pro-preview', 'generateContent', `?key=${key}`), ask('Hi'), {});
    expect(viaQuery.status).to.equal(200);
    const viaBearer = await post(url(GEMINI_MODEL, 'generateContent'), ask('Hi'), { authorization: `Bearer ${key}` });
    expect(viaBearer.status).to.equal(200);
    await gateway.settled();
    expect(gateway.rawLogs()).not.to.include(key);
    const wrong = await post(url(GEMINI_MODEL, 'generateContent', '?key=sk-gw-wrong'), ask('Hi'), {});
    expect(wrong.status).to.equal(401);
    expect(await wrong.json()).to.deep.equal({ error: { code: 401, message: 'Invalid API key.', status: 'UNAUTHENTICATED' } });
  });

  it('streamGenerateContent?alt=sse relays the frames as sent and bills the last chunk', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url(GEMINI_MODEL, 'streamGenerateContent', '?alt=sse'), ask('Stream [[sim reasoning=5]]'));
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.include('text/event-stream');
    const text = await response.text();
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse');
    expect(text).to.equal((sent!.answer as string).replaceAll('"modelVersion":"gemini-3.1-pro-preview"', `"modelVersion":"${GEMINI_MODEL}"`));
    const chunks = parseSse(text).map((f) => JSON.parse(f.data));
    expect(chunks.at(-1).candidates[0].finishReason).to.equal('STOP');
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
  });

  it('streamGenerateContent without alt=sse answers the JSON-array stream, billed the same way', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url(GEMINI_MODEL, 'streamGenerateContent'), ask('Array'));
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.include('application/json');
    const chunks = JSON.parse(await response.text()) as any[];
    expect(chunks.length).to.be.greaterThan(1);
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).to.equal('Hello from the sandbox model. This answer is');
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse');
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
  });

  it('a stream cut by the provider ends with an error chunk and is billed for what was delivered, marked estimated', async () => {
    const [paid, logged] = [await debits(), (await gateway.requestLogs(`customer_id=${customerId}`)).length];
    const response = await post(url(GEMINI_MODEL, 'streamGenerateContent', '?alt=sse'), ask('Cut [[sim cut=3 no_usage]]'));
    const chunks = parseSse(await response.text()).map((f) => JSON.parse(f.data));
    expect(chunks.at(-1)).to.deep.equal({ error: { code: 500, message: 'The connection to the provider broke; the answer was cut.', status: 'INTERNAL' } });
    const [log] = await gateway.requestLogs(`customer_id=${customerId}`, logged + 1);
    expect(log).to.include({ usage_estimated: true, interrupted: true });
    expect(Number(await debits())).to.be.greaterThan(Number(paid));
  });

  it('a prompt past 200,000 input tokens is priced whole at the long-context tier (input 4.00, cached 0.40, output 18.00)', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url(GEMINI_MODEL, 'generateContent'), ask(`${'x'.repeat(900_000)} [[sim cached=1000]]`));
    expect(response.status).to.equal(200);
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.billed!.promptTokenCount).to.be.greaterThan(200_000);
    const tiered = geminiMicros(sent!.billed!, { input: 4_000_000n, cached: 400_000n, output: 18_000_000n });
    expect(tiered > geminiMicros(sent!.billed!), 'the tier costs more than the base').to.equal(true);
    expect(await debits()).to.equal(plus(paid, formatMicros(tiered)));
    await gateway.requestLog(response.headers.get('request-id')!);
    const receipt = (await (
      await fetch(`${gateway.url}/v1/requests/${response.headers.get('request-id')}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as any;
    expect(receipt.usage.price_tier).to.deep.include({ index: 0, above_input_tokens: 200_000 });
  });

  it('countTokens is the provider’s count, free, and logged', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url('gemini-3.1-pro-preview', 'countTokens'), ask('How many tokens is this?'));
    expect(response.status).to.equal(200);
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.1-pro-preview:countTokens');
    expect(await response.json()).to.deep.equal(sent!.answer);
    expect(await debits()).to.equal(paid);
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=gemini_count_tokens`);
    expect(log).to.include({ model: GEMINI_MODEL, status: 200, provider: 'sandbox-gemini' });
  });

  it('fails over to the Vertex AI route, which calls with the service account’s token', async () => {
    const [before, paid] = [vertex.exchanges.length, await debits()];
    studio.next({ error: 503 });
    const response = await post(url(GEMINI_MODEL, 'generateContent'), ask('Failover'));
    expect(response.status).to.equal(200);
    const sent = vertex.exchanges.slice(before).filter((e) => e.path !== '/token');
    expect(sent).to.have.length(1);
    expect(sent[0]!.path).to.equal('/v1/projects/sandbox-project/locations/us-central1/publishers/google/models/gemini-3.1-pro-preview:generateContent');
    expect(sent[0]!.headers.authorization).to.match(/^Bearer ya29\.sandbox\./);
    expect(await debits()).to.equal(plus(paid, geminiCost(sent[0]!.billed!)));
  });

  it('streams from the Vertex AI route when AI Studio refuses, billed from its last chunk', async () => {
    const [before, paid] = [vertex.exchanges.length, await debits()];
    studio.next({ error: 500 });
    const response = await post(url(GEMINI_MODEL, 'streamGenerateContent', '?alt=sse'), ask('Stream over Vertex [[sim reasoning=2]]'));
    expect(response.status).to.equal(200);
    const chunks = parseSse(await response.text()).map((f) => JSON.parse(f.data));
    expect(chunks.at(-1).candidates[0].finishReason).to.equal('STOP');
    const [sent] = vertex.exchanges.slice(before).filter((e) => e.path !== '/token');
    expect(sent!.path).to.equal(
      '/v1/projects/sandbox-project/locations/us-central1/publishers/google/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse',
    );
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
  });

  it('passes the provider’s 429 on as RESOURCE_EXHAUSTED with its retry delay, charging nothing', async () => {
    const paid = await debits();
    studio.next({ error: 429 });
    vertex.next({ error: 429 });
    const response = await post(url(GEMINI_MODEL, 'generateContent'), ask('Busy'));
    expect(response.status).to.equal(429);
    expect(response.headers.get('retry-after')).to.equal('1');
    const body = (await response.json()) as any;
    expect(body.error).to.deep.include({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(body.error.details).to.deep.equal([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }]);
    expect(await debits()).to.equal(paid);
  });

  it('refuses in Google’s shape: a bad body, an unknown model, another group’s model, a balance too low', async () => {
    const empty = await post(url(GEMINI_MODEL, 'generateContent'), { contents: [] });
    expect(empty.status).to.equal(400);
    expect(((await empty.json()) as any).error).to.deep.include({ code: 400, status: 'INVALID_ARGUMENT' });
    const unknown = await post(url('gemini-0-nothing', 'generateContent'), ask('Hi'));
    expect(unknown.status).to.equal(404);
    expect(((await unknown.json()) as any).error).to.deep.include({ code: 404, status: 'NOT_FOUND' });
    const other = await post(url('sandbox/chat-model', 'generateContent'), ask('Hi'));
    expect(other.status).to.equal(400);
    const poor = await gateway.customerWithKey();
    const refused = await post(url(GEMINI_MODEL, 'generateContent'), ask('Hi'), { 'x-goog-api-key': poor.key });
    expect(refused.status).to.equal(403);
    const body = (await refused.json()) as any;
    expect(body.error).to.deep.include({ code: 403, status: 'PERMISSION_DENIED' });
    expect(body.error.message).to.match(/balance is too low/);
    expect(body.error.details[0]).to.include({ reason: 'INSUFFICIENT_BALANCE' });
  });

  it('lists the key’s gemini models in Gemini’s shape and gets one by name or alias', async () => {
    const list = await fetch(`${gateway.url}/v1beta/models`, { headers: { 'x-goog-api-key': key } });
    const names = (((await list.json()) as any).models as any[]).map((m) => m.name);
    expect(names).to.include.members(['models/sandbox/gemini-pro', 'models/sandbox/gemini-flash']);
    expect(names.every((n) => !n.includes('claude'))).to.equal(true);
    const one = await fetch(`${gateway.url}/v1beta/models/gemini-3.1-pro-preview`, { headers: { 'x-goog-api-key': key } });
    expect(await one.json()).to.deep.include({ name: 'models/gemini-3.1-pro-preview', baseModelId: GEMINI_MODEL, outputTokenLimit: 65536 });
    const raw = await fetch(`${gateway.url}/v1beta/models/sandbox/gemini-flash`, { headers: { 'x-goog-api-key': key } });
    expect(raw.status).to.equal(200);
    const none = await fetch(`${gateway.url}/v1beta/models/sandbox%2Fchat-model`, { headers: { 'x-goog-api-key': key } });
    expect(none.status).to.equal(404);
  });

  it('a release the catalogue has never heard of reaches its family by pattern, billed under the model id', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await post(url('gemini-9.9-pro-preview', 'generateContent'), ask('Hi'));
    expect(response.status).to.equal(200);
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.1-pro-preview:generateContent');
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
    const log = await gateway.requestLog(response.headers.get('request-id')!);
    expect(log).to.include({ model: GEMINI_MODEL, requested_model: 'gemini-9.9-pro-preview' });
    const counted = await post(url('gemini-9.9-flash', 'countTokens'), ask('Hi'));
    expect(counted.status).to.equal(200);
    const one = await fetch(`${gateway.url}/v1beta/models/gemini-9.9-flash`, { headers: { 'x-goog-api-key': key } });
    expect(((await one.json()) as any).baseModelId).to.equal('sandbox/gemini-flash');
  });
});
