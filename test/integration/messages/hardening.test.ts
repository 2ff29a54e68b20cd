import { expect } from 'chai';
import type { AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const HAIKU = 'sandbox/claude-haiku'; // max_output_tokens 64000, no free quota

/** `depth` nested arrays around a string, built as text (no recursion anywhere). */
const nested = (depth: number, inner = '"x"') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('messages: hostile input and hostile upstreams never yield a 5xx or lose money', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: AnthropicSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    primary = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
  });
  after(async () => gateway.close());
  let available: string;
  beforeEach(async () => {
    available = (await gateway.wallet(customerId)).available;
  });

  const post = (path: string, text: string) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: text });
  const unchanged = async () => {
    const wallet = await gateway.wallet(customerId);
    expect(wallet).to.include({ available, reserved: '0.000000' });
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  };

  it('refuses max_tokens of 2^63, 1e20, 1e400, zero, fractions and above the model limit with a 400 naming it', async () => {
    for (const literal of ['9223372036854775808', '1e20', '1e400', '0', '-1', '1.5', '"10"', '64001']) {
      const response = await post('/v1/messages', `{"model":"${HAIKU}","max_tokens":${literal},"messages":[{"role":"user","content":"hi"}]}`);
      const body = (await response.json()) as any;
      expect(response.status, literal).to.equal(400);
      expect(body.type).to.equal('error');
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message, literal).to.include('max_tokens');
    }
    expect(primary.requests.filter((r) => r.path === '/v1/messages')).to.have.length(0);
    await unchanged();
  });

  it('refuses nesting deeper than the limit in tools, unknown blocks and metadata, on messages and count_tokens', async () => {
    const bodies = [
      `{"model":"${HAIKU}","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":${nested(50_000, '{}')}}]}`,
      `{"model":"${HAIKU}","max_tokens":10,"messages":[{"role":"user","content":[{"type":"future_block","payload":${nested(5_000)}}]}]}`,
      `{"model":"${HAIKU}","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":"u","deep":${nested(50_000)}}}`,
    ];
    for (const text of bodies) {
      for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
        const response = await post(path, text);
        expect(response.status, path).to.equal(400);
        expect(((await response.json()) as any).error.message).to.match(/nests deeper/);
      }
    }
    await unchanged();
  });

  it('refuses a model that is not a string with a 400 naming it, on messages and count_tokens', async () => {
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      for (const model of ['{"toString":1}', '[{"toString":1}]', '42', 'null']) {
        const response = await post(path, `{"model":${model},"max_tokens":10,"messages":[{"role":"user","content":"x"}]}`);
        expect(response.status, `${path} ${model}`).to.equal(400);
        expect(((await response.json()) as any).error.message).to.include('model');
      }
    }
    await unchanged();
  });

  it('accepts unknown block types and nesting within the limit, and estimates them without failing', async () => {
    const text = `{"model":"${HAIKU}","messages":[{"role":"user","content":[{"type":"future_block","payload":${nested(100)}},{"type":"text","text":"hi"}]}]}`;
    primary.next({ error: 503 });
    const response = await post('/v1/messages/count_tokens', text);
    expect(response.status).to.equal(200);
    expect(((await response.json()) as any).input_tokens).to.be.greaterThan(0);
  });

  it('answers an upstream 200 that is not JSON: count_tokens falls back to the estimate, messages is a 502 with nothing charged', async () => {
    const counted = await post('/v1/messages/count_tokens', JSON.stringify({ model: HAIKU, messages: [{ role: 'user', content: 'hi [[sim garbage]]' }] }));
    expect(counted.status).to.equal(200);
    expect(((await counted.json()) as any).input_tokens).to.be.greaterThan(0);
    for (const stream of [false, true]) {
      const response = await post(
        '/v1/messages',
        JSON.stringify({ model: HAIKU, max_tokens: 10, stream, messages: [{ role: 'user', content: 'hi [[sim garbage]]' }] }),
      );
      if (stream) {
        // Headers are already out when a stream turns out not to be one: the client gets an error event.
        expect(response.status).to.equal(200);
        expect(await response.text()).to.include('event: error');
      } else {
        expect(response.status).to.equal(502);
        expect(((await response.json()) as any).error.type).to.equal('api_error');
      }
    }
    await unchanged();
  });

  it('cuts a stream that passes its max_tokens cover with an error event, and charges no more than the cover', async () => {
    const response = await post(
      '/v1/messages',
      JSON.stringify({ model: HAIKU, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'flood [[sim deltas=5000 delta_chars=4000]]' }] }),
    );
    const text = await response.text();
    expect(text.length).to.be.lessThan(200_000); // about one delta, not 20 MB
    expect(text).to.match(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The provider sent more output than max_tokens allows/);
    const log = await gateway.requestLog(response.headers.get('request-id')!);
    expect(log).to.include({ interrupted: true, output_tokens: 100, usage_estimated: true });
    // Haiku: output at 5.00 per million tokens: 100 tokens cost 0.0005 at most, plus the input.
    const wallet = await gateway.wallet(customerId);
    expect(5 - Number(wallet.available)).to.be.lessThan(0.001);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('never bills more output than max_tokens when the provider over-reports', async () => {
    const before = Number((await gateway.wallet(customerId)).available);
    const response = await post(
      '/v1/messages',
      JSON.stringify({ model: HAIKU, max_tokens: 50, messages: [{ role: 'user', content: 'hi [[sim report_output=9000000]]' }] }),
    );
    expect(response.status).to.equal(200);
    const log = await gateway.requestLog(response.headers.get('request-id')!);
    expect(log).to.include({ output_tokens: 50 });
    expect(log.usage_detail).to.include({ output_tokens_reported: 9000000 });
    expect(before - Number((await gateway.wallet(customerId)).available)).to.be.lessThan(0.001);
  });

  it('passes the provider status and error type on, without its hosts, URLs, ids or keys', async () => {
    for (const status of [400, 429, 500, 529]) {
      primary.next({ error: status, leaky: true });
      const response = await post('/v1/messages', JSON.stringify({ model: HAIKU, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
      expect(response.status).to.equal(status);
      const body = (await response.json()) as any;
      const text = JSON.stringify(body);
      for (const secret of ['internal-llm-7', 'corp.example.com', '10.2.3.4', 'req_011CVXabcdef', 'sk-ant-api03', 'https://'])
        expect(text, `${status} ${secret}`).to.not.include(secret);
      expect(body.error.message).to.include(`simulated ${status}`);
      if (status === 429 || status === 529) expect(response.headers.get('retry-after')).to.equal('1');
    }
    const logged = gateway.rawLogs();
    for (const secret of ['internal-llm-7', 'corp.example.com', 'sk-ant-api03']) expect(logged).to.not.include(secret);
    await unchanged();
  });
});

describe('messages: provider timeouts fire when configured', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  let key: string;
  before(async () => {
    const file = sampleCatalogueWith({
      provider: { 'sandbox-anthropic': { timeouts: { connect_ms: 2000, first_byte_ms: 1000, response_ms: 1500, idle_ms: 30000 } } },
    });
    gateway = await startTestGateway({ cataloguePath: file });
    let customerId: string;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  for (const [stream, limitMs] of [
    [true, 1000],
    [false, 1500],
  ] as const) {
    it(`answers 504 once the ${stream ? 'first byte' : 'response'} timeout passes, not later (${limitMs} ms)`, async () => {
      const started = Date.now();
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ model: HAIKU, max_tokens: 10, stream, messages: [{ role: 'user', content: 'slow [[sim first_byte_ms=6000]]' }] }),
      });
      const elapsed = Date.now() - started;
      expect(response.status).to.equal(504);
      expect(((await response.json()) as any).error.type).to.equal('timeout_error');
      // Generous bounds: the point is "when configured", not at a multiple of it.
      expect(elapsed).to.be.within(limitMs - 50, limitMs + 1500);
    });
  }
});
