// The tracing seam of the two upstream clients (src/telemetry/hooks.ts): with hooks installed,
// every call (undici's relay and got's task calls, a retried poll attempt by attempt, a download
// until its last byte) opens a client span, reports how it ended, and sends the headers the span
// gives (traceparent, when the operator opted in); with none, nothing of it happens.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { callUpstream, collect } from '../../../src/providers/http.ts';
import { callJson } from '../../../src/providers/json-http.ts';
import { attachTaskClient, taskStream } from '../../../src/providers/task-client.ts';
import { UpstreamError } from '../../../src/providers/types.ts';
import { traceHooks, type CallLabels, type TraceHooks } from '../../../src/telemetry/hooks.ts';

interface Recorded {
  labels: CallLabels;
  method: string;
  events: string[];
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracing seam of the upstream clients', function () {
  this.timeout(15_000);
  let server: http.Server;
  let base: string;
  let provider: ResolvedProvider;
  let spans: Recorded[];
  let received: http.IncomingHttpHeaders[];
  const hooks: TraceHooks = {
    serverStep: () => (_req, _res, next) => next(),
    upstreamCall(labels, method) {
      const span: Recorded = { labels, method, events: [] };
      spans.push(span);
      return {
        headers: { traceparent: TRACEPARENT },
        answered: (status) => span.events.push(`answered ${status}`),
        failed: (kind, status) => span.events.push(`failed ${kind}${status ? ` ${status}` : ''}`),
        end: () => span.events.push('end'),
      };
    },
    videoTask: (_kind, _labels, work) => work(),
  };

  before(async () => {
    let flaky = 0;
    server = http.createServer((req, res) => {
      received.push(req.headers);
      if (req.url === '/flaky' && flaky++ % 2 === 0) return void res.writeHead(503).end('{}');
      res.writeHead(req.url === '/down' ? 503 : 200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    provider = {
      id: 'tasks',
      protocol: 'ark-video',
      sandbox: false,
      baseUrl: base,
      timeouts: { connect_ms: 1000, first_byte_ms: 1000, response_ms: 1000, idle_ms: 1000 },
      credential: () => 'sk-secret-credential',
    };
    attachTaskClient(provider, {});
  });
  beforeEach(() => {
    spans = [];
    received = [];
    traceHooks.current = hooks;
  });
  afterEach(() => (traceHooks.current = undefined));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const relay = (path: string) =>
    callUpstream({
      url: base + path,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      connectMs: 1000,
      firstByteMs: 1000,
      idleMs: 1000,
      trace: { provider: 'anthropic-x', model: 'claude-x', group: 'messages' },
    });

  it('relay: a span per call, ended once the body is read; a refusal fails it; the span headers go out', async () => {
    const answer = await relay('/ok');
    expect(answer).to.not.be.instanceOf(UpstreamError);
    expect(spans).to.deep.equal([{ labels: { provider: 'anthropic-x', model: 'claude-x', group: 'messages' }, method: 'POST', events: ['answered 200'] }]);
    if (answer instanceof UpstreamError) return;
    await collect(answer.body);
    await new Promise((r) => setImmediate(r));
    expect(spans[0]!.events).to.deep.equal(['answered 200', 'end']);
    expect(received[0]!.traceparent).to.equal(TRACEPARENT);
    expect(await relay('/down')).to.be.instanceOf(UpstreamError);
    expect(spans[1]!.events).to.deep.equal(['failed status 503', 'end']);
    const closed = await callUpstream({
      url: 'http://127.0.0.1:1/x',
      headers: {},
      connectMs: 500,
      firstByteMs: 1000,
      idleMs: 1000,
      trace: { provider: 'gone' },
    });
    expect(closed).to.be.instanceOf(UpstreamError);
    expect(spans[2]).to.deep.equal({ labels: { provider: 'gone' }, method: 'POST', events: ['failed connect', 'end'] });
  });

  it('task calls (got): a span per attempt of a retried poll, and a download spanned until its last byte', async () => {
    expect(await callJson(provider, 'GET', '/flaky')).to.deep.include({ status: 200 });
    expect(spans.map((s) => [s.labels.provider, s.method, s.events])).to.deep.equal([
      ['tasks', 'GET', ['answered 503', 'end']],
      ['tasks', 'GET', ['answered 200', 'end']],
    ]);
    expect(received.map((h) => h.traceparent)).to.deep.equal([TRACEPARENT, TRACEPARENT]);
    const stream = taskStream(provider, new URL(`${base}/file`), { headers: {}, signal: new AbortController().signal });
    for await (const chunk of stream) expect(chunk).to.be.instanceOf(Buffer);
    const deadline = Date.now() + 5000;
    while (spans[2]?.events.at(-1) !== 'end' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(spans[2]).to.deep.include({ method: 'GET', events: ['answered 200', 'end'] });
  });

  it('with tracing off: no span and no trace header', async () => {
    traceHooks.current = undefined;
    const answer = await relay('/ok');
    if (!(answer instanceof UpstreamError)) await collect(answer.body);
    await callJson(provider, 'GET', '/ok');
    expect(spans).to.deep.equal([]);
    expect(received.map((h) => h.traceparent)).to.deep.equal([undefined, undefined]);
  });
});
