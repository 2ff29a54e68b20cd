// The Anthropic simulator and the gateway's Messages adapter against the vendored contract
// (openapi/upstream/anthropic-messages.yaml): every kind of answer the simulator gives, every
// directive it reads, and the requests the gateway sends it, Claude Code's recorded ones included.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ModelEntry } from '../../src/catalogue/types.ts';
import { ROOT_DIR } from '../../src/config.ts';
import { startAnthropicSimulator, type AnthropicSimulator } from '../../src/sandbox/anthropic/server.ts';
import { sampleCatalogueWith } from '../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseSse, validateUpstreamRequest, validateUpstreamResponse } from '../helpers/upstream-contract.ts';

const API = 'anthropic-messages';
const MESSAGES = '/v1/messages';
const COUNT = '/v1/messages/count_tokens';
const user = (content: string) => [{ role: 'user', content }];

type Json = Record<string, any>;

/** A stream folded into the message it describes, as the SDK's MessageStream does. */
function fold(text: string): { message: Json; names: string[] } {
  const frames = parseSse(text);
  let message: Json = {};
  const partial = new Map<number, string>();
  for (const frame of frames) {
    const event = JSON.parse(frame.data) as Json;
    if (event.type === 'message_start') message = structuredClone(event.message);
    if (event.type === 'content_block_start') message.content[event.index] = structuredClone(event.content_block);
    if (event.type === 'content_block_delta') {
      const block = message.content[event.index];
      const delta = event.delta;
      if (delta.type === 'text_delta') block.text += delta.text;
      if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
      if (delta.type === 'signature_delta') block.signature = delta.signature;
      if (delta.type === 'input_json_delta') partial.set(event.index, (partial.get(event.index) ?? '') + delta.partial_json);
    }
    if (event.type === 'content_block_stop' && partial.has(event.index)) message.content[event.index].input = JSON.parse(partial.get(event.index)!);
    if (event.type === 'message_delta') {
      Object.assign(message, event.delta);
      for (const [field, value] of Object.entries(event.usage as Json)) if (value !== null) message.usage[field] = value;
    }
  }
  return { message, names: frames.map((f) => f.event ?? '') };
}

/** The body as far as it came: a provider that drops the connection mid-body leaves a part. */
async function received(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
  } catch {
    // the connection was cut: keep what arrived
  }
  return text;
}

const parsed = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Content without the ids the simulator draws at random. */
const withoutIds = (content: Json[]) => content.map(({ id: _id, ...block }) => block);

describe('contract: the anthropic simulator and messages adapter against openapi/upstream/anthropic-messages.yaml', function () {
  this.timeout(60_000);

  describe('the simulator', () => {
    let simulator: AnthropicSimulator;
    before(async () => (simulator = await startAnthropicSimulator()));
    after(async () => simulator.close());

    const HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
    const call = async (body: unknown, { to = MESSAGES, headers = HEADERS as Record<string, string> } = {}) => {
      const response = await fetch(simulator.baseUrl + to, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const type = response.headers.get('content-type') ?? '';
      const text = await received(response);
      return {
        status: response.status,
        type,
        text,
        body: type.includes('json') ? parsed(text) : undefined,
        requestId: response.headers.get('request-id'),
        retryAfter: response.headers.get('retry-after'),
      };
    };
    const ask = (content: string, extra: Json = {}) => call({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: user(content), ...extra });

    // Each answer shape, and what it must show besides passing the contract.
    const shapes: Array<[string, Json, Json]> = [
      ['hi', {}, { stop_reason: 'end_turn', types: ['text'] }],
      ['[[sim tool]]', {}, { stop_reason: 'tool_use', types: ['tool_use'] }],
      ['[[sim thinking]]', {}, { stop_reason: 'end_turn', types: ['thinking', 'text'] }],
      ['[[sim thinking tool]]', {}, { stop_reason: 'tool_use', types: ['thinking', 'tool_use'] }],
      [
        '[[sim cache_write=30 cache_write_1h=10 cache_read=50]]',
        {},
        {
          usage: {
            cache_creation_input_tokens: 30,
            cache_read_input_tokens: 50,
            cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 10 },
          },
        },
      ],
      [
        '[[sim web_search=2 web_fetch=1 tier=priority]]',
        {},
        { usage: { server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 }, service_tier: 'priority' } },
      ],
      ['[[sim report_output=1000 first_byte_ms=5]]', {}, { usage: { output_tokens: 1000 } }],
      ['[[sim deltas=3 delta_chars=5]]', {}, { types: ['text'], text: 'x'.repeat(15), usage: { output_tokens: 3 } }],
      ['a long answer', { max_tokens: 3 }, { stop_reason: 'max_tokens', types: ['text'], usage: { output_tokens: 3 } }],
      ['[[sim thinking tool]]', { max_tokens: 5 }, { stop_reason: 'max_tokens', types: ['thinking'], usage: { output_tokens: 4 } }],
      ['[[sim deltas=12]] past max_tokens on purpose', { max_tokens: 5 }, { stop_reason: 'end_turn', usage: { output_tokens: 12 } }],
    ];

    const expectShape = (message: Json, expected: Json, label: string) => {
      if (expected.stop_reason) expect(message.stop_reason, label).to.equal(expected.stop_reason);
      if (expected.types)
        expect(
          message.content.map((b: Json) => b.type),
          label,
        ).to.deep.equal(expected.types);
      if (expected.text) expect(message.content[0].text, label).to.equal(expected.text);
      if (expected.usage) expect(message.usage, label).to.deep.include(expected.usage);
    };

    it('answers JSON messages (text, tool_use, thinking, cache, server tools, tier, max_tokens) as the contract says', async () => {
      for (const [content, extra, expected] of shapes) {
        const answer = await ask(content, extra);
        expect(answer.status, content).to.equal(200);
        expect(answer.type).to.equal('application/json');
        expect(answer.requestId).to.match(/^req_/);
        expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, answer.body, answer.type), content).to.deep.equal([]);
        expect(answer.body).to.include({ type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_sequence: null });
        expect(answer.body.id).to.match(/^msg_/);
        expectShape(answer.body, expected, content);
        const tool = answer.body.content.find((b: Json) => b.type === 'tool_use');
        if (tool) expect(tool.id).to.match(/^toolu_/);
      }
    });

    it('streams named frames in the documented order, folding into the same message as the JSON answer', async () => {
      const streams: Array<[string, Json]> = [
        ...shapes.map(([content, extra]): [string, Json] => [content, extra]),
        ['[[sim split gap_ms=1]]', {}],
        ['[[sim usage_nulls]]', {}],
        ['[[sim message_deltas=3]]', {}],
      ];
      for (const [content, extra] of streams) {
        const stream = await ask(content, { ...extra, stream: true });
        expect(stream.status, content).to.equal(200);
        expect(stream.type).to.equal('text/event-stream; charset=utf-8');
        expect(stream.requestId).to.match(/^req_/);
        expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, stream.text, stream.type), content).to.deep.equal([]);

        const { message, names } = fold(stream.text);
        expect(names[0], content).to.equal('message_start');
        expect(names.at(-1)).to.equal('message_stop');
        expect(names.at(-2)).to.equal('message_delta');
        const json = (await ask(content, extra)).body;
        expect(withoutIds(message.content), content).to.deep.equal(withoutIds(json.content));
        expect(message.stop_reason).to.equal(json.stop_reason);
        expect(message.usage.output_tokens).to.equal(json.usage.output_tokens);
        expect(message.usage.input_tokens).to.equal(json.usage.input_tokens);
      }
    });

    it("refuses as Anthropic does: its error shape, a request id, each status's error type", async () => {
      const valid = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: user('hi') };
      const { max_tokens: _max, ...noMaxTokens } = valid;
      const refusals: Array<[string, Awaited<ReturnType<typeof call>>, number, string, string?]> = [
        ['bad JSON', await call('{"model":'), 400, 'invalid_request_error'],
        ['no key', await call(valid, { headers: { 'anthropic-version': '2023-06-01' } }), 401, 'authentication_error'],
        ['no version', await call(valid, { headers: { 'x-api-key': 'sk-ant-test' } }), 400, 'invalid_request_error', 'anthropic-version: header is required'],
        ['no max_tokens', await call(noMaxTokens), 400, 'invalid_request_error', 'max_tokens: Field required'],
        ['model not a string', await call({ ...valid, model: 7 }), 400, 'invalid_request_error', 'model: Input should be a valid string'],
        ['count without messages', await call({ model: 'claude-sonnet-4-5' }, { to: COUNT }), 400, 'invalid_request_error', 'messages: Field required'],
        ['unknown path', await call(valid, { to: '/v1/complete' }), 404, 'not_found_error'],
      ];
      const types: Record<number, string> = {
        400: 'invalid_request_error',
        401: 'authentication_error',
        402: 'billing_error',
        403: 'permission_error',
        404: 'not_found_error',
        413: 'request_too_large',
        429: 'rate_limit_error',
        500: 'api_error',
        504: 'timeout_error',
        529: 'overloaded_error',
      };
      for (const [status, type] of Object.entries(types)) refusals.push([`error=${status}`, await ask(`[[sim error=${status}]]`), Number(status), type]);
      refusals.push(['leaky', await ask('[[sim error=500 leaky]]', { stream: true }), 500, 'api_error']);

      for (const [label, answer, status, type, message] of refusals) {
        expect(answer.status, label).to.equal(status);
        expect(answer.type, label).to.equal('application/json');
        expect(answer.body, label).to.deep.include({ type: 'error', request_id: answer.requestId });
        expect(answer.requestId, label).to.match(/^req_/);
        expect(answer.body.error.type, label).to.equal(type);
        if (message) expect(answer.body.error.message, label).to.equal(message);
        expect(validateUpstreamResponse(API, 'POST', label.startsWith('count') ? COUNT : MESSAGES, status, answer.body), label).to.deep.equal([]);
        expect(answer.retryAfter, label).to.equal(status === 429 || status === 529 ? '1' : null);
      }
    });

    it('ends a stream broken after the 200 with an error event the contract knows, and counts tokens', async () => {
      const broken = await ask('[[sim error_event=2]]', { stream: true });
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, broken.text, broken.type)).to.deep.equal([]);
      const last = parseSse(broken.text).at(-1)!;
      expect(last.event).to.equal('error');
      expect(JSON.parse(last.data).error).to.deep.equal({ type: 'overloaded_error', message: 'Overloaded' });

      const counted = await call({ model: 'claude-sonnet-4-5', messages: user('Hello there'), system: 'Be brief.' }, { to: `${COUNT}?beta=true` });
      expect(counted.status).to.equal(200);
      expect(counted.requestId).to.match(/^req_/);
      expect(counted.body.input_tokens).to.be.a('number').greaterThan(0);
      expect(validateUpstreamResponse(API, 'POST', COUNT, 200, counted.body, counted.type)).to.deep.equal([]);
    });

    it('breaks the contract only where a directive asks for a broken provider, and the check sees it', async () => {
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, (await ask('[[sim no_usage]]')).body)).to.deep.equal([
        'response: missing required field "usage"',
      ]);
      const silent = await ask('[[sim no_usage]]', { stream: true });
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, silent.text, silent.type)).to.deep.equal([
        'frame 0.message: missing required field "usage"',
        'frame 12: missing required field "usage"',
      ]);
      const garbage = await ask('[[sim garbage]]', { stream: true });
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, garbage.text, garbage.type)).to.deep.equal(['stream: no frames']);
      const html = await ask('[[sim garbage]]');
      expect([html.type, html.body]).to.deep.equal(['application/json', undefined]); // not JSON at all
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, html.text, html.type)).to.deep.equal(['response: must be object, got string']);
      const halfJson = await ask('[[sim cut=2]]');
      expect(halfJson.body).to.equal(undefined);
      expect(halfJson.text).to.match(/^\{"id":"msg_/); // half a message, then the connection drops
      const cut = await ask('[[sim cut=2]]', { stream: true });
      expect(validateUpstreamResponse(API, 'POST', MESSAGES, 200, cut.text, cut.type)).to.deep.equal([]); // every frame sent is valid...
      expect(parseSse(cut.text).map((f) => f.event)).to.not.include('message_stop'); // ...but the message never ends
    });
  });

  describe("the gateway's outgoing requests", () => {
    const MODEL = 'sandbox/claude-contract';
    const UPSTREAM = 'claude-contract-upstream';
    let gateway: TestGateway;
    let simulator: AnthropicSimulator;
    let key: string;

    before(async () => {
      // Claude Code asks for up to 128000 output tokens; the sample models allow 64000.
      const model: ModelEntry = {
        id: MODEL,
        group: 'messages',
        routes: [{ provider: 'sandbox-anthropic', upstream_model: UPSTREAM }],
        max_output_tokens: 128000,
        price: { input_per_mtok: '3.00', output_per_mtok: '15.00' },
      };
      gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith({ models: [model] }) });
      simulator = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
      let customerId: string;
      ({ key, customerId } = await gateway.customerWithKey());
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '50.00', reference: 'fund' });
    });
    after(async () => gateway.close());

    interface ClientRequest {
      label: string;
      to?: string;
      headers?: Record<string, string>;
      body: Json;
    }

    interface Exchange {
      request: ClientRequest;
      upstream: AnthropicSimulator['requests'][number];
      answer: { text: string; type: string };
    }

    /** Sends each request as a client would and returns what the provider received for it. */
    async function relay(requests: ClientRequest[]): Promise<Exchange[]> {
      const seen: Exchange[] = [];
      for (const request of requests) {
        const before = simulator.requests.length;
        const auth: Record<string, string> = request.headers?.authorization ? {} : { 'x-api-key': key };
        const response = await fetch(`${gateway.url}${request.to ?? MESSAGES}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth, ...request.headers },
          body: JSON.stringify(request.body),
        });
        const text = await response.text();
        expect(response.status, `${request.label}: ${text.slice(0, 300)}`).to.equal(200);
        const upstream = simulator.requests.slice(before);
        expect(upstream, request.label).to.have.length(1);
        seen.push({ request, upstream: upstream[0]!, answer: { text, type: response.headers.get('content-type') ?? '' } });
      }
      return seen;
    }

    function expectForwarded({ request, upstream, answer }: Exchange) {
      const label = request.label;
      const to = (request.to ?? MESSAGES).split('?')[0]!;
      expect(upstream.path, label).to.equal(to);
      expect(validateUpstreamRequest(API, 'POST', upstream.path, upstream.body), label).to.deep.equal([]);
      expect(upstream.body, label).to.deep.equal({ ...request.body, model: UPSTREAM });
      expect(upstream.headers['anthropic-version'], label).to.equal(request.headers?.['anthropic-version'] ?? '2023-06-01');
      expect(upstream.headers['anthropic-beta'], label).to.equal(request.headers?.['anthropic-beta']);
      expect(upstream.headers['x-api-key'], label).to.equal('sandbox'); // the provider credential
      expect(upstream.headers.authorization, label).to.equal(undefined);
      expect(JSON.stringify(upstream.headers), label).to.not.include(key);
      // What the client got back is still an Anthropic answer (model: the public id).
      const body = answer.type.includes('json') ? JSON.parse(answer.text) : answer.text;
      expect(validateUpstreamResponse(API, 'POST', to, 200, body, answer.type), label).to.deep.equal([]);
    }

    const tools = [
      {
        name: 'get_weather',
        description: 'Weather by city',
        input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
    ];
    const toolTurn = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { location: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '18 C', is_error: false },
          { type: 'text', text: '[[sim tool]]' },
        ],
      },
    ];

    it('are valid Messages requests: the client body with only model changed, the provider credential, the betas as sent', async () => {
      const requests: ClientRequest[] = [
        { label: 'plain, no anthropic-version', body: { model: MODEL, max_tokens: 64, messages: user('Hello') } },
        { label: 'streaming', headers: { 'anthropic-version': '2023-06-01' }, body: { model: MODEL, max_tokens: 64, stream: true, messages: user('Hello') } },
        {
          label: 'tools and a tool turn',
          body: { model: MODEL, max_tokens: 256, tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true }, messages: toolTurn },
        },
        {
          label: 'system as blocks, 1h cache, sampling and metadata',
          headers: { 'anthropic-beta': 'extended-cache-ttl-2025-04-11' },
          body: {
            model: MODEL,
            max_tokens: 64,
            system: [
              { type: 'text', text: 'Be brief.' },
              { type: 'text', text: 'Answer in English.', cache_control: { type: 'ephemeral', ttl: '1h' } },
            ],
            cache_control: { type: 'ephemeral' },
            metadata: { user_id: 'u-1' },
            stop_sequences: ['END'],
            temperature: 0.2,
            top_k: 5,
            messages: user('Hi'),
          },
        },
        {
          label: 'mid-conversation system messages',
          body: {
            model: MODEL,
            max_tokens: 64,
            stream: true,
            messages: [...user('Hi'), { role: 'system', content: [{ type: 'text', text: 'Reply in one line.', cache_control: { type: 'ephemeral' } }] }],
          },
        },
        {
          label: 'fields the gateway does not read (output_config, context_management, speed, inference_geo, service_tier)',
          headers: { 'anthropic-beta': 'context-management-2025-06-27,fast-mode-2026-02-01' },
          body: {
            model: MODEL,
            max_tokens: 64,
            stream: true,
            output_config: { effort: 'low', format: { type: 'json_schema', schema: { type: 'object' } } },
            context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
            speed: 'fast',
            inference_geo: 'us',
            service_tier: 'standard_only',
            messages: user('Hi'),
          },
        },
        {
          label: 'thinking with a budget, through ?beta=true',
          to: `${MESSAGES}?beta=true`,
          headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
          body: { model: MODEL, max_tokens: 4096, stream: true, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: user('Think [[sim thinking]]') },
        },
        {
          label: 'adaptive thinking, Bearer auth, the client version',
          headers: { authorization: `Bearer ${key}`, 'anthropic-version': '2023-01-01' },
          body: {
            model: MODEL,
            max_tokens: 1024,
            thinking: { type: 'adaptive', display: 'summarized' },
            output_config: { effort: 'high' },
            messages: user('[[sim thinking]]'),
          },
        },
        {
          label: 'count_tokens',
          to: COUNT,
          headers: { 'anthropic-beta': 'token-counting-2024-11-01' },
          body: { model: MODEL, system: 'Be brief.', tools, thinking: { type: 'adaptive' }, messages: toolTurn },
        },
      ];
      for (const exchange of await relay(requests)) expectForwarded(exchange);
    });

    it("forward Claude Code 2.1.330's recorded requests as valid Messages and count_tokens requests", async () => {
      const dir = path.join(ROOT_DIR, 'test/fixtures/claude-code/2.1.330');
      const skip = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'x-api-key', 'authorization']);
      const requests = fs
        .readdirSync(dir)
        .map((name) => ({ name, fixture: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Json }))
        .filter(({ fixture }) => fixture.method === 'POST')
        .map(({ name, fixture }) => ({
          label: name,
          to: fixture.path,
          headers: Object.fromEntries(Object.entries(fixture.headers as Record<string, string>).filter(([h]) => !skip.has(h))),
          body: { ...fixture.body, model: MODEL },
        }));
      expect(requests.map((r) => r.label)).to.include.members([
        'messages-print.json',
        'messages-print-stream-json.json',
        'messages-tool-result.json',
        'count-tokens-context-tools.json',
      ]);
      for (const exchange of await relay(requests)) {
        expectForwarded(exchange);
        expect(exchange.request.headers?.['anthropic-beta'], exchange.request.label).to.be.a('string').and.include('claude-code-20250219');
      }
    });

    it('would be caught sending a body the provider refuses: the contract check and the simulator both say no', async () => {
      const [sent] = await relay([{ label: 'a valid request', body: { model: MODEL, max_tokens: 32, messages: user('Hello') } }]);
      const upstream = sent!.upstream;
      const { max_tokens: _dropped, ...noMaxTokens } = upstream.body;
      expect(validateUpstreamRequest(API, 'POST', MESSAGES, noMaxTokens)).to.deep.equal(['body: missing required field "max_tokens"']);
      expect(validateUpstreamRequest(API, 'POST', MESSAGES, { ...upstream.body, model: 7 })).to.deep.equal(['body.model: must be string, got integer']);
      for (const [body, message] of [
        [noMaxTokens, 'max_tokens: Field required'],
        [{ ...upstream.body, model: 7 }, 'model: Input should be a valid string'],
      ] as const) {
        const refused = await fetch(simulator.baseUrl + MESSAGES, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'sandbox', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify(body),
        });
        expect(refused.status).to.equal(400);
        expect(((await refused.json()) as Json).error).to.deep.equal({ type: 'invalid_request_error', message });
      }
    });
  });
});
