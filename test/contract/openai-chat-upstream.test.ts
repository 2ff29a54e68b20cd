import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT_DIR } from '../../src/config.ts';
import { KNOWN_REQUEST_FIELDS } from '../../src/sandbox/openai-chat/refusals.ts';
import { startOpenAIChatSimulator, type OpenAIChatSimulator } from '../../src/sandbox/openai-chat/server.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseSse, validateUpstreamRequest, validateUpstreamResponse } from '../helpers/upstream-contract.ts';

const API = 'openai-chat-completions';
const messages = [{ role: 'user', content: 'Hello' }];
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];

/** Top-level fields of CreateChatCompletionRequest in the vendored document, through its allOf. */
function vendoredRequestFields(): string[] {
  const doc = parse(fs.readFileSync(path.join(ROOT_DIR, 'openapi/upstream/openai-chat-completions.yaml'), 'utf8'));
  const fields = (name: string): string[] => {
    const schema = doc.components.schemas[name];
    return (schema.allOf ?? [schema]).flatMap((part: any) => (part.$ref ? fields(part.$ref.split('/').pop()) : Object.keys(part.properties ?? {})));
  };
  return [...new Set(fields('CreateChatCompletionRequest'))].sort();
}

describe('contract: the openai-chat simulator and adapter against openapi/upstream/openai-chat-completions.yaml', function () {
  this.timeout(60_000);

  describe('the simulator', () => {
    let simulator: OpenAIChatSimulator;
    before(async () => (simulator = await startOpenAIChatSimulator()));
    after(async () => simulator.close());
    const post = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-test' }) =>
      fetch(`${simulator.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const answer = async (body: unknown, headers?: Record<string, string>) => {
      const response = await post(body, headers);
      const type = response.headers.get('content-type') ?? '';
      const text = await response.text();
      return {
        status: response.status,
        type,
        text,
        body: type.includes('json') ? JSON.parse(text) : undefined,
        requestId: response.headers.get('x-request-id'),
        retryAfter: response.headers.get('retry-after'),
      };
    };

    it('refuses exactly the fields the vendored request schema does not name', () => {
      expect([...KNOWN_REQUEST_FIELDS].sort()).to.deep.equal(vendoredRequestFields());
    });

    it('answers JSON completions (text, tool calls, n, cache and reasoning details) as the contract says', async () => {
      for (const body of [
        { model: 'gpt-4o-mini', messages },
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather? [[sim tool]]' }], tools },
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi [[sim cached=3 reasoning=5]]' }], n: 2 },
      ]) {
        const result = await answer(body);
        expect(result.status).to.equal(200);
        expect(result.requestId).to.match(/^req_/);
        expect(validateUpstreamResponse(API, 'POST', '/chat/completions', 200, result.body, result.type)).to.deep.equal([]);
      }
    });

    it('streams data-only chunks ending with [DONE], the usage chunk only when asked for', async () => {
      const plain = await answer({ model: 'gpt-4o-mini', messages, stream: true });
      expect(plain.type).to.equal('text/event-stream; charset=utf-8');
      expect(validateUpstreamResponse(API, 'POST', '/chat/completions', 200, plain.text, plain.type)).to.deep.equal([]);
      const frames = parseSse(plain.text);
      expect(frames.every((f) => f.event === undefined)).to.equal(true);
      expect(frames.slice(0, -1).every((f) => !('usage' in JSON.parse(f.data)))).to.equal(true);

      for (const extra of [{}, { n: 2 }, { tools, messages: [{ role: 'user', content: '[[sim tool split]]' }] }]) {
        const withUsage = await answer({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true }, ...extra });
        expect(validateUpstreamResponse(API, 'POST', '/chat/completions', 200, withUsage.text, withUsage.type)).to.deep.equal([]);
        const chunks = parseSse(withUsage.text)
          .slice(0, -1)
          .map((f) => JSON.parse(f.data));
        expect(chunks.slice(0, -1).every((c) => c.usage === null)).to.equal(true);
        expect(chunks.at(-1)).to.deep.include({ choices: [] });
        expect(chunks.at(-1).usage.total_tokens).to.be.greaterThan(0);
      }
      const tool = parseSse((await answer({ model: 'm', messages: [{ role: 'user', content: '[[sim tool]]' }], stream: true })).text);
      const deltas = tool.slice(0, -1).map((f) => JSON.parse(f.data).choices[0]);
      expect(deltas[0].delta.tool_calls[0]).to.include({ index: 0, type: 'function' });
      expect(deltas.map((c) => c.delta.tool_calls?.[0].function.arguments ?? '').join('')).to.equal('{"location": "Paris", "unit": "celsius"}');
      expect(deltas.at(-1).finish_reason).to.equal('tool_calls');
    });

    it("refuses as OpenAI does, in OpenAI's error shape", async () => {
      const cases: Array<[unknown, number, Record<string, unknown>, Record<string, string>?]> = [
        [
          { model: 'm', messages, thinking: { type: 'enabled' } },
          400,
          { message: 'Unrecognized request argument supplied: thinking', type: 'invalid_request_error', param: null, code: null },
        ],
        [
          { model: 'm', messages, stream_options: { include_usage: true } },
          400,
          { message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param: 'stream_options' },
        ],
        [{ model: 'm', messages: [] }, 400, { param: 'messages', code: 'empty_array' }],
        [{ model: 'm', messages }, 401, { code: 'invalid_api_key' }, {}],
        [{ model: 'm', messages: [{ role: 'user', content: '[[sim error=429]]' }] }, 429, { type: 'requests', code: 'rate_limit_exceeded' }],
        [{ model: 'm', messages: [{ role: 'user', content: '[[sim error=500]]' }] }, 500, { type: 'server_error' }],
      ];
      for (const [body, status, error, headers] of cases) {
        const result = await answer(body, headers);
        expect(result.status, JSON.stringify(body)).to.equal(status);
        expect(result.body.error).to.include(error);
        expect(validateUpstreamResponse(API, 'POST', '/chat/completions', status, result.body)).to.deep.equal([]);
        if (status === 429) expect(result.retryAfter).to.equal('1');
      }
      const broken = await answer({ model: 'm', messages: [{ role: 'user', content: '[[sim error_event=2]]' }], stream: true });
      const last = parseSse(broken.text).at(-1)!;
      expect(validateUpstreamResponse(API, 'POST', '/chat/completions', 500, JSON.parse(last.data))).to.deep.equal([]);
    });
  });

  describe("the gateway's outgoing requests", () => {
    let gateway: TestGateway;
    let simulator: OpenAIChatSimulator;
    before(async () => {
      gateway = await startTestGateway();
      simulator = gateway.simulators.get('sandbox-openai-chat') as OpenAIChatSimulator;
    });
    after(async () => gateway.close());

    it('are valid chat completion requests with the provider credential and the client fields as sent', async () => {
      const { key, customerId } = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
      const bodies = [
        { model: 'sandbox/chat-model', messages },
        { model: 'sandbox/chat-model', messages, stream: true },
        { model: 'sandbox/chat-model', messages, stream: true, stream_options: { include_obfuscation: false } },
        {
          model: 'sandbox/chat-model',
          messages,
          tools,
          tool_choice: 'auto',
          response_format: { type: 'json_object' },
          reasoning_effort: 'low',
          n: 2,
          max_completion_tokens: 50,
          seed: 7,
          temperature: 0.5,
        },
        {
          model: 'sandbox/chat-model',
          messages,
          modalities: ['text', 'audio'],
          audio: { voice: 'alloy', format: 'wav' },
          max_tokens: 20,
          stream: true,
          stream_options: { include_usage: true },
        },
      ];
      for (const body of bodies) {
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).to.equal(200);
        await response.text();
      }
      expect(simulator.requests).to.have.length(bodies.length);
      simulator.requests.forEach((seen, i) => {
        expect(seen.path).to.equal('/v1/chat/completions'); // base_url http://127.0.0.1:port/v1 + /chat/completions
        expect(validateUpstreamRequest(API, 'POST', '/chat/completions', seen.body)).to.deep.equal([]);
        expect(seen.headers.authorization).to.equal('Bearer sandbox');
        expect(JSON.stringify(seen.headers)).to.not.include(key);
        const sent = bodies[i]! as Record<string, any>;
        const expected = sent.stream ? { ...sent, stream_options: { ...sent.stream_options, include_usage: true } } : sent;
        expect(seen.body).to.deep.equal({ ...expected, model: 'sandbox-chat' });
      });
      expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    });
  });
});
