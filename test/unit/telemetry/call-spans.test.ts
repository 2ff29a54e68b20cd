// The client span of each upstream attempt (src/telemetry/call-spans.ts), riding the providers'
// call hooks on both clients (undici for the text protocols, got for the task providers): named by
// the operation and model of an inference, by the method otherwise; the provider id as
// server.address and no URL; ended once the answer's body was read (a relayed stream, a download
// to its last byte) or at once on a failure; traceparent sent only when the operator opted in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { expect } from 'chai';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { callProvider } from '../../../src/providers/call.ts';
import { collect } from '../../../src/providers/http.ts';
import { callJson } from '../../../src/providers/json-http.ts';
import { taskStream } from '../../../src/providers/task-client.ts';
import { UpstreamError } from '../../../src/providers/types.ts';
import { callSpans } from '../../../src/telemetry/call-spans.ts';
import { textAndTaskProviders } from '../../helpers/providers.ts';

describe('client spans of upstream calls (call-spans.ts on the providers call hooks)', () => {
  let server: http.Server;
  let base: string;
  let traceparents: Array<string | undefined> = [];
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  const resolve = (contextToProviders: boolean): Map<string, ResolvedProvider> =>
    textAndTaskProviders(base, { calls: [callSpans(tracer, { genAi: true, contextToProviders })] });
  const spans = () => exporter.getFinishedSpans();

  before(async () => {
    server = http.createServer((req, res) => {
      traceparents.push(req.headers.traceparent as string | undefined);
      if (req.url?.endsWith('/missing')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('first part');
      setTimeout(() => res.end('last part'), 50); // the span must outlast the head
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    traceparents = [];
    exporter.reset();
  });
  after(() => new Promise<void>((done) => server.close(() => done())));

  it('an inference relayed: named by operation and model, ended with its last byte, traceparent its own when opted in', async () => {
    const text = resolve(true).get('text')!;
    const request = {
      url: `${base}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      requestIdHeader: 'x-request-id',
      model: 'gpt-x',
    };
    const answer = await callProvider(text, request, 'first-byte');
    if (answer instanceof UpstreamError) throw answer;
    expect(spans(), 'still open while the body is relayed').to.have.length(0);
    expect(await collect(answer.body)).to.equal('first partlast part');
    const deadline = Date.now() + 5000;
    while (spans().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const [span] = spans();
    expect(span).to.include({ name: 'chat gpt-x', kind: 2 /* CLIENT */ });
    expect(span!.attributes).to.deep.equal({
      'http.request.method': 'POST',
      'server.address': 'text',
      'gateway.provider': 'text',
      'gen_ai.provider.name': 'text',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-x',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).to.equal(SpanStatusCode.UNSET);
    const { traceId, spanId } = span!.spanContext();
    expect(traceparents).to.deep.equal([`00-${traceId}-${spanId}-01`]);
  });

  it('task provider calls on got: a refusal fails its span; a download is spanned to its last byte; no traceparent unless opted in', async () => {
    const tasks = resolve(false).get('tasks')!;
    expect(await callJson(tasks, 'GET', '/tasks/missing'))
      .to.be.instanceOf(UpstreamError)
      .and.include({ status: 404 });
    expect(spans()).to.have.length(1);
    expect(spans()[0]).to.include({ name: 'GET' });
    expect(spans()[0]!.attributes).to.include({ 'http.response.status_code': 404, 'error.type': '404', 'server.address': 'tasks' });
    expect(spans()[0]!.status.code).to.equal(SpanStatusCode.ERROR);

    const stream = taskStream(tasks, new URL(`${base}/file`), { headers: {}, signal: new AbortController().signal });
    let read = '';
    for await (const chunk of stream) {
      read += String(chunk);
      if (read === 'first part') expect(spans(), 'open until the last byte').to.have.length(1);
    }
    const deadline = Date.now() + 5000;
    while (spans().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(spans()[1]!.attributes).to.include({ 'http.response.status_code': 200 });
    expect(traceparents).to.deep.equal([undefined, undefined]);
  });

  it('an attempt that never reached the provider: failed by how, no status', async () => {
    const text = resolve(false).get('text')!;
    const request = { url: 'http://127.0.0.1:1/v1/chat/completions', headers: {}, body: '{}', requestIdHeader: 'x-request-id' };
    expect(await callProvider(text, request, 'first-byte'))
      .to.be.instanceOf(UpstreamError)
      .and.include({ kind: 'connect' });
    expect(spans()[0]).to.include({ name: 'POST' });
    expect(spans()[0]!.attributes).to.include({ 'error.type': 'connect' }).and.not.have.property('http.response.status_code');
  });

  it('no attribute names a URL, a host or a port', async () => {
    const text = resolve(true).get('text')!;
    const answer = await callProvider(
      text,
      { url: `${base}/v1/chat/completions?key=sk-secret`, headers: {}, body: '{}', requestIdHeader: 'x-request-id', model: 'gpt-x' },
      'first-byte',
    );
    if (!(answer instanceof UpstreamError)) await collect(answer.body);
    const deadline = Date.now() + 5000;
    while (spans().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const text_ = JSON.stringify(spans().map((s) => [s.name, s.attributes]));
    expect(text_).to.not.include('127.0.0.1').and.not.include(new URL(base).port).and.not.include('sk-secret');
  });
});
