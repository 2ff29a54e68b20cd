import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { SAMPLE_CATALOGUE, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// Issue 35: names by pattern, what the gateway adapts for a model it substituted (and says so), and
// Claude Code's gateway contract (betas and version forwarded unchanged), through the sample catalogue.
describe('model patterns, substitutions and the Anthropic headers', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let anthropic: AnthropicSimulator;
  let key: string;
  let customerId: string;
  const LONG_CONTEXT = 'context-1m-2025-08-07';
  const BETAS_2_1_197 = `claude-code-20250219,${LONG_CONTEXT},interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13,context-management-2025-06-27,prompt-caching-scope-2026-01-05,mid-conversation-system-2026-04-07,effort-2025-11-24`;

  before(async () => {
    const catalogue = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'patterns-')), 'catalogue.yaml');
    fs.copyFileSync(SAMPLE_CATALOGUE, catalogue); // a copy: the last test edits it
    gateway = await startTestGateway({ cataloguePath: catalogue });
    anthropic = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '20.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  /** A message as Claude Code sends it (a field order and number formats of its own), with `headers` added. */
  async function message(model: string, maxTokens: number, headers: Record<string, string> = {}) {
    const before = anthropic.requests.length;
    const body = `{"model":${JSON.stringify(model)},"messages":[{"role":"user","content":"say hi"}],"metadata":{"user_id":"{\\"session\\":1}"},"max_tokens":${maxTokens},"temperature":1.0,"stream":false}`;
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
      body,
    });
    const text = await response.text();
    return { response, text, upstream: anthropic.requests.slice(before), requestId: response.headers.get('request-id')! };
  }

  it("answers Claude Code 2.1.197's default name by the opus pattern: billed under the id, the name sent kept, the 1M beta forwarded to a 1M model", async () => {
    const { response, text, upstream, requestId } = await message('claude-opus-4-8', 64000, {
      'anthropic-beta': BETAS_2_1_197,
      'x-claude-code-session-id': '0b7c4a1e-2f4d-4c71-9d35-6b0e0c1f2a33',
    });
    expect(response.status, text).to.equal(200);
    expect(JSON.parse(text).model).to.equal('sandbox/claude-opus');
    expect(response.headers.get('x-gateway-max-tokens-capped')).to.equal(null); // 64000 fits the 128000 cap
    expect(response.headers.get('x-gateway-beta-dropped')).to.equal(null);
    expect(upstream).to.have.length(1);
    expect(upstream[0]!.headers['anthropic-beta']).to.equal(BETAS_2_1_197);
    expect(upstream[0]!.body).to.include({ model: 'claude-opus-5-5', max_tokens: 64000 });
    expect(upstream[0]!.headers['x-claude-code-session-id'], 'the session id is the gateway’s to read, not forwarded').to.equal(undefined);

    const row = await gateway.requestLog(requestId);
    expect(row).to.include({
      model: 'sandbox/claude-opus',
      requested_model: 'claude-opus-4-8',
      session_id: '0b7c4a1e-2f4d-4c71-9d35-6b0e0c1f2a33',
      max_tokens_requested: null,
      max_tokens_capped: null,
    });
    const receipt = await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await receipt.json()).to.deep.include({ model: 'sandbox/claude-opus', requested_model: 'claude-opus-4-8', max_tokens_capped: null });
  });

  it("sends a substitute's output cap instead of refusing (only that member of the body changes), says so, logs both, and holds by the cap", async () => {
    // `--model sonnet` on Claude Code 2.1.330: claude-sonnet-5-5 and 128000 output tokens, on a 64000-token model.
    const { response, text, upstream, requestId } = await message('claude-sonnet-5-5', 128000);
    expect(response.status, text).to.equal(200);
    expect(response.headers.get('x-gateway-max-tokens-capped')).to.equal('64000');
    expect(upstream[0]!.body).to.deep.equal({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: 'say hi' }],
      metadata: { user_id: '{"session":1}' },
      max_tokens: 64000,
      temperature: 1.0,
      stream: false,
    });
    const row = await gateway.requestLog(requestId);
    expect(row).to.include({ model: 'sandbox/claude-sonnet', requested_model: 'claude-sonnet-5-5', max_tokens_requested: 128000, max_tokens_capped: 64000 });
    const receipt = (await (await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    expect(receipt.max_tokens_capped).to.deep.equal({ requested: 128000, sent: 64000 });
    // The hold: 64000 output tokens at 15.00 per million, less the model's free tokens, plus the
    // input estimate; 128000 would have held at least (128000 - 10000) x 15.00 / 1M = 1.77.
    const free = receipt.hold.free_units_held;
    expect(free).to.be.within(1, 10000);
    expect(Number(receipt.hold.amount)).to.be.within(((64000 - free) * 15) / 1e6, ((64000 - free) * 15) / 1e6 + 0.01);
  });

  it('never alters a model named by its exact id: a max_tokens past its cap is refused as before', async () => {
    const { response, text, upstream } = await message('sandbox/claude-sonnet', 128000);
    expect(response.status).to.equal(400);
    expect(JSON.parse(text).error.message).to.include('max_tokens: 128000 is greater than the maximum allowed for this model (64000)');
    expect(upstream).to.have.length(0);
  });

  it("leaves out a 1M-context beta a substitute's context window cannot honour, says which, and forwards every other beta as sent", async () => {
    // `--model haiku[1m]` on an older release: a 200K-context model the gateway chose.
    const { response, upstream } = await message('claude-haiku-4-5-20251001', 32000, { 'anthropic-beta': BETAS_2_1_197 });
    expect(response.status).to.equal(200);
    expect(response.headers.get('x-gateway-beta-dropped')).to.equal(LONG_CONTEXT);
    expect(upstream[0]!.headers['anthropic-beta']).to.equal(BETAS_2_1_197.replace(`${LONG_CONTEXT},`, ''));
    // Named by its id, the same model gets the betas unchanged (the provider judges them).
    const exact = await message('sandbox/claude-haiku', 32000, { 'anthropic-beta': BETAS_2_1_197 });
    expect(exact.response.headers.get('x-gateway-beta-dropped')).to.equal(null);
    expect(exact.upstream[0]!.headers['anthropic-beta']).to.equal(BETAS_2_1_197);
  });

  it('forwards anthropic-version as sent (2026-10-21 included) and adds 2023-06-01 only when none was sent', async () => {
    const sent = await message('claude-haiku-4-5', 100, { 'anthropic-version': '2026-10-21' });
    expect(sent.response.status).to.equal(200);
    expect(sent.upstream[0]!.headers['anthropic-version']).to.equal('2026-10-21');
    const before = anthropic.requests.length;
    const none = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(none.status).to.equal(200);
    expect(anthropic.requests[before]!.headers['anthropic-version']).to.equal('2023-06-01');
    expect(anthropic.requests[before]!.headers['anthropic-beta']).to.equal(undefined);
  });

  it("caps a Responses request's max_output_tokens for a Codex name a pattern matched, and answers a name nothing matches with model_not_found", async () => {
    const simulator = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    const before = simulator.exchanges.length;
    const answer = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model":"gpt-5.3-codex","input":"say hi","max_output_tokens":100000,"store":false}',
    });
    expect(answer.status, await answer.clone().text()).to.equal(200);
    expect(answer.headers.get('x-gateway-max-tokens-capped')).to.equal('32000');
    expect(simulator.exchanges[before]!.raw).to.equal('{"model":"sandbox-responses","input":"say hi","max_output_tokens":32000,"store":false}');
    const row = await gateway.requestLog(answer.headers.get('request-id')!);
    expect(row).to.include({ model: 'sandbox/responses-model', requested_model: 'gpt-5.3-codex', max_tokens_requested: 100000, max_tokens_capped: 32000 });

    const unknown = await message('llama-4-maverick', 100);
    expect(unknown.response.status).to.equal(404);
    expect(JSON.parse(unknown.text).error.type).to.equal('not_found_error');
  });

  it('refuses a reload whose patterns clash and keeps the last good catalogue', async () => {
    const haiku = 'patterns: [claude-haiku-*, claude-3*-haiku-*]\n    group: messages\n    display_name: Sandbox Claude Haiku';
    const result = await gateway.rewriteCatalogue((text) => {
      expect(text).to.include(haiku);
      return text.replace(haiku, haiku.replace('claude-3*-haiku-*]', 'claude-3*-haiku-*, claude-opus-?]'));
    });
    expect(result.status).to.equal(422);
    expect(String(result.body.error.message)).to.include('"claude-opus-?" and "claude-opus-*"');
    const still = await message('claude-opus-7', 100);
    expect(still.response.status).to.equal(200);
    expect(JSON.parse(still.text).model).to.equal('sandbox/claude-opus');
  });
});
