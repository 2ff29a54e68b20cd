import { expect } from 'chai';
import { startAnthropicSimulator, type AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { startOpenAIChatSimulator, type OpenAIChatSimulator } from '../../../src/sandbox/openai-chat/server.ts';
import { fundedCustomer, startChildGateway, type ChildGateway } from '../../helpers/child-gateway.ts';
import { getTestDatabase, resetDatabase, testDatabaseUrlInUse, usingPostgres } from '../../helpers/db.ts';
import { haikuModel, sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const CREDENTIALS = {
  TRACE_TEST_ANTHROPIC_KEY: 'sk-ant-trace-credential-4f1d',
  TRACE_TEST_CHAT_KEY: 'sk-chat-trace-credential-9b2e',
  TRACE_TEST_ARK_KEY: 'ark-trace-credential-77c3',
};
const PROMPTS = {
  message: 'a secret prompt about lighthouses 5e1f',
  chat: 'a secret chat prompt about harbours 8c0a',
  video: 'a secret video prompt of a comet d41b',
};

// OpenTelemetry traces (issue 38): a gateway process with OTEL_EXPORTER_OTLP_ENDPOINT set sends its
// spans to a real OTLP/HTTP receiver: a server span per request (continuing the client's
// traceparent), a client span per upstream call, a span per video submission and poll, with the
// GenAI attributes under OTEL_SEMCONV_STABILITY_OPT_IN and the gateway's ids; never a prompt, a
// key, a credential or an upstream host. Providers get a traceparent only when the operator opts in.
describe(`OpenTelemetry traces to an OTLP/HTTP receiver (${usingPostgres() ? 'PostgreSQL' : 'embedded database'})`, function () {
  this.timeout(180_000);
  let anthropic: AnthropicSimulator;
  let chat: OpenAIChatSimulator;
  let ark: ArkSimulator;
  let cataloguePath: string;
  const started: ChildGateway[] = [];
  const receivers: OtlpReceiver[] = [];

  before(async () => {
    anthropic = await startAnthropicSimulator();
    chat = await startOpenAIChatSimulator();
    ark = await startArkSimulator({ queuedMs: 0, runningMs: 0 });
    cataloguePath = sampleCatalogueWith({
      providers: [
        testProvider('anthropic-traced', 'anthropic', anthropic.baseUrl, 'TRACE_TEST_ANTHROPIC_KEY'),
        testProvider('chat-traced', 'openai-chat', chat.baseUrl, 'TRACE_TEST_CHAT_KEY'),
        testProvider('ark-traced', 'ark-video', ark.baseUrl, 'TRACE_TEST_ARK_KEY'),
      ],
      models: [
        haikuModel('traced/claude', 'anthropic-traced'),
        {
          id: 'traced/chat',
          group: 'chat',
          routes: [{ provider: 'chat-traced', upstream_model: 'gpt-4.1-mini' }],
          price: { input_per_mtok: '0.50', output_per_mtok: '1.50' },
        },
        seedanceModel('traced/seedance', 'ark-traced', { cancellable: true }),
      ],
    });
    if (usingPostgres()) await resetDatabase(await getTestDatabase());
  });
  afterEach(async () => {
    for (const gateway of started.splice(0)) {
      gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
    for (const receiver of receivers.splice(0)) await receiver.close();
    if (usingPostgres()) await resetDatabase(await getTestDatabase());
  });
  after(async () => Promise.all([anthropic?.close(), chat?.close(), ark?.close()]));

  async function tracedGateway(env: Record<string, string>): Promise<{ gateway: ChildGateway; receiver: OtlpReceiver; key: string; customerId: string }> {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const gateway = await startChildGateway({
      env: {
        ...CREDENTIALS,
        CATALOGUE_PATH: cataloguePath,
        DATABASE_URL: usingPostgres() ? testDatabaseUrlInUse() : undefined,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'gateway-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=trace-test',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=collector-token-1',
        OTEL_BSP_SCHEDULE_DELAY: '50', // export every 50 ms rather than 5 s
        VIDEO_POLLER: 'true',
        VIDEO_POLL_INTERVAL_MS: '100',
        ...env,
      },
    });
    started.push(gateway);
    const { key, customerId } = await fundedCustomer(gateway, '20.00');
    return { gateway, receiver, key, customerId };
  }

  /** Waits until the receiver holds spans matching `wanted`, and answers them. */
  async function spansWhere(receiver: OtlpReceiver, wanted: (s: ReceivedSpan) => boolean, atLeast = 1): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = receiver.spans().filter(wanted);
      if (found.length >= atLeast) return found;
      if (Date.now() > deadline) throw new Error(`spans not received: ${JSON.stringify(receiver.spans().map((s) => s.name))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const one = async (receiver: OtlpReceiver, wanted: (s: ReceivedSpan) => boolean) => (await spansWhere(receiver, wanted))[0]!;
  const childOf = (parent: ReceivedSpan) => (s: ReceivedSpan) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId;

  it('sends a server span per request (continuing the client traceparent), a client span per upstream call and a span per video submit and poll, with GenAI attributes and no secret', async () => {
    const { gateway, receiver, key, customerId } = await tracedGateway({
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental',
    });
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';

    // A message, with the client's trace context.
    const message = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', traceparent: `00-${clientTrace}-${clientSpan}-01` },
      body: JSON.stringify({ model: 'traced/claude', max_tokens: 64, messages: [{ role: 'user', content: `${PROMPTS.message} [[sim cache_read=30]]` }] }),
    });
    expect(message.status).to.equal(200);
    const messageBody = (await message.json()) as { usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number } };
    const messageId = message.headers.get('request-id')!;
    const server = await one(receiver, (s) => s.attributes['gateway.request_id'] === messageId);
    expect(server).to.include({ name: 'POST /v1/messages', kind: SERVER, traceId: clientTrace, parentSpanId: clientSpan, statusCode: 0 });
    expect(server.attributes).to.deep.include({
      'http.request.method': 'POST',
      'http.route': '/v1/messages',
      'http.response.status_code': 200,
      'gateway.operation': 'messages_create',
      'gateway.customer_id': customerId,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'traced/claude',
      'gen_ai.response.model': 'traced/claude',
      'gen_ai.provider.name': 'anthropic-traced',
      'gen_ai.request.stream': false,
      // As billed: the uncached input, the cache reads, the output the provider reported.
      'gen_ai.usage.input_tokens': messageBody.usage.input_tokens + messageBody.usage.cache_read_input_tokens,
      'gen_ai.usage.cache_read.input_tokens': messageBody.usage.cache_read_input_tokens,
      'gen_ai.usage.output_tokens': messageBody.usage.output_tokens,
    });
    expect(server.attributes['gateway.key_id']).to.match(/^key_/);
    expect(server.attributes['gateway.cost']).to.match(/^0\.\d{6}$/);
    expect(server.resource).to.include({ 'service.name': 'gateway-under-test', 'deployment.environment.name': 'trace-test' });
    const upstream = await one(receiver, childOf(server));
    expect(upstream).to.include({ name: 'chat claude-haiku-4-5-20251001', kind: CLIENT, statusCode: 0 });
    expect(upstream.attributes).to.deep.include({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': 'anthropic-traced', // the catalogue's provider id, never its host
      'gen_ai.provider.name': 'anthropic-traced',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude-haiku-4-5-20251001',
    });
    // The provider learned no trace id: nothing of the kind was sent (TRACE_CONTEXT_TO_PROVIDERS is off).
    const sent = anthropic.requests.at(-1)!;
    expect(sent.headers).to.not.have.any.keys('traceparent', 'tracestate', 'baggage');

    // A streamed chat completion, without trace context: a trace of its own.
    const stream = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'traced/chat',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: PROMPTS.chat }],
      }),
    });
    expect(stream.status).to.equal(200);
    const events = await stream.text();
    expect(events).to.include('data: [DONE]');
    const usage = JSON.parse(
      events
        .split('\n')
        .filter((l) => l.startsWith('data: {') && l.includes('"usage":{'))
        .at(-1)!
        .slice(6),
    ).usage;
    const chatId = stream.headers.get('request-id')!;
    const chatServer = await one(receiver, (s) => s.attributes['gateway.request_id'] === chatId);
    expect(chatServer).to.include({ name: 'POST /v1/chat/completions', kind: SERVER, parentSpanId: undefined });
    expect(chatServer.attributes).to.deep.include({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.stream': true,
      'gen_ai.provider.name': 'chat-traced',
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
    });
    const chatUpstream = await one(receiver, childOf(chatServer));
    expect(chatUpstream).to.include({ name: 'chat gpt-4.1-mini', kind: CLIENT });
    expect(chatUpstream.attributes).to.include({ 'server.address': 'chat-traced', 'http.response.status_code': 200 });

    // A video task: the submission inside the request's trace, then the poller's polls, each a trace.
    const created = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'traced/seedance', prompt: PROMPTS.video, seconds: 5, resolution: '720p' }),
    });
    expect(created.status).to.equal(202);
    const answer = (await created.json()) as { id?: string; task_id?: string };
    const taskId = (answer.task_id ?? answer.id)!;
    const videoServer = await one(receiver, (s) => s.attributes['gateway.request_id'] === created.headers.get('request-id'));
    expect(videoServer).to.include({ name: 'POST /v1/videos', kind: SERVER });
    expect(videoServer.attributes).to.include({ 'gen_ai.operation.name': 'generate_content', 'gen_ai.request.model': 'traced/seedance' });
    const submit = await one(receiver, childOf(videoServer));
    expect(submit).to.include({ name: 'video submit', kind: INTERNAL });
    expect(submit.attributes).to.include({
      'gateway.video.outcome': 'submitted',
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.provider.name': 'ark-traced',
      'gen_ai.request.model': 'doubao-seedance-1-5-pro-251215',
    });
    const submitCall = await one(receiver, childOf(submit));
    expect(submitCall).to.include({ name: 'POST', kind: CLIENT });
    expect(submitCall.attributes).to.include({ 'server.address': 'ark-traced', 'http.response.status_code': 200 });
    let status = '';
    for (const deadline = Date.now() + 30_000; status !== 'completed' && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const task = await fetch(`${gateway.url}/v1/videos/${taskId}`, { headers: { authorization: `Bearer ${key}` } });
      status = ((await task.json()) as { status: string }).status;
    }
    expect(status).to.equal('completed');
    const poll = await one(receiver, (s) => s.name === 'video poll' && s.attributes['gateway.video.status'] === 'completed');
    expect(poll).to.include({ kind: INTERNAL, parentSpanId: undefined });
    expect(poll.attributes).to.include({ 'gateway.provider': 'ark-traced' });
    expect(await one(receiver, childOf(poll))).to.include({ name: 'GET', kind: CLIENT });
    // Reads of the task are named by the route, never by the id in the URL.
    const reads = await spansWhere(receiver, (s) => s.attributes['http.route'] === '/v1/videos/{task_id}');
    expect(reads[0]).to.include({ name: 'GET /v1/videos/{task_id}' });

    // Nothing secret anywhere in what the collector received: the customer's key, the providers'
    // credentials, their hosts, the prompts.
    const received = receiver.everything().toString('utf8');
    expect(receiver.exports.every((e) => e.path === '/v1/traces' && e.headers['x-collector-token'] === 'collector-token-1')).to.equal(true);
    for (const secret of [key, ...Object.values(CREDENTIALS), ...Object.values(PROMPTS), 'lighthouses', 'harbours', 'comet'])
      expect(received, 'a secret in the traces').to.not.include(secret);
    for (const upstreamUrl of [anthropic.baseUrl, chat.baseUrl, ark.baseUrl]) expect(received).to.not.include(new URL(upstreamUrl).host);
    expect(received).to.not.include(taskId.slice(3)); // not even in a name or a path: spans carry the route
  });

  it('forwards traceparent to providers when the operator opts in (TRACE_CONTEXT_TO_PROVIDERS), and sends protobuf by default', async () => {
    const { gateway, receiver, key } = await tracedGateway({ TRACE_CONTEXT_TO_PROVIDERS: 'true' });
    const clientTrace = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', traceparent: `00-${clientTrace}-b7ad6b7169203331-01`, baggage: 'user=someone' },
      body: JSON.stringify({ model: 'traced/claude', max_tokens: 16, messages: [{ role: 'user', content: PROMPTS.message }] }),
    });
    expect(response.status).to.equal(200);
    await response.text();
    const forwarded = anthropic.requests.at(-1)!.headers;
    const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(String(forwarded.traceparent))!;
    expect(traceId, 'the same trace').to.equal(clientTrace);
    expect(spanId, 'the client span of the call, not the caller').to.not.equal('b7ad6b7169203331');
    expect(flags).to.equal('01');
    expect(forwarded).to.not.have.property('baggage'); // the client's baggage stays here
    // The default protocol is protobuf: the spans are there (ids as bytes, names as text), and still nothing secret.
    const deadline = Date.now() + 30_000;
    const received = () => receiver.everything();
    const arrived = () => received().includes(Buffer.from(spanId!, 'hex')) && received().includes('POST /v1/messages');
    while (!arrived() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(receiver.exports[0]!.headers['content-type']).to.equal('application/x-protobuf');
    expect(received().includes(Buffer.from(spanId!, 'hex')), 'the client span was exported').to.equal(true);
    expect(received().includes(Buffer.from(clientTrace, 'hex'))).to.equal(true);
    expect(received().toString('latin1')).to.include('POST /v1/messages');
    for (const secret of [key, CREDENTIALS.TRACE_TEST_ANTHROPIC_KEY, PROMPTS.message, new URL(anthropic.baseUrl).host])
      expect(received().toString('latin1')).to.not.include(secret);
  });
});
