// The provider-call hooks as another observer (a client span) uses them beside the metrics: each
// told of every attempt on either client (undici for the text protocols, got for the task
// providers), in order, each given back its own onAttempt value, and able to add a header before
// the request leaves.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { callProviderJson, combineHooks } from '../../../src/providers/call.ts';
import { callJson } from '../../../src/providers/json-http.ts';
import { textAndTaskProviders } from '../../helpers/providers.ts';
import { UpstreamError, type Attempt, type AttemptOutcome, type CallHooks } from '../../../src/providers/types.ts';

interface Told {
  provider: string;
  method: string;
  started: string;
  outcome: AttemptOutcome;
  status: number | undefined;
}

describe('provider-call hooks (call.ts)', () => {
  let server: http.Server;
  let base: string;
  let traceparents: Array<string | undefined> = [];
  let counted: Array<[string, AttemptOutcome, number | undefined]> = [];
  let spans: Told[] = [];
  let providers: Map<string, ResolvedProvider>;
  let serial = 0;

  /** A span-like observer: names each attempt, puts its trace context on the request, ends it with the result. */
  const tracing: CallHooks<string> = {
    onAttempt: (attempt: Attempt) => {
      const name = `span-${++serial}`;
      attempt.headers.traceparent = `00-${name}`;
      return name;
    },
    onResult: (attempt, started, outcome, status) => void spans.push({ provider: attempt.provider.id, method: attempt.method, started, outcome, status }),
  };

  before(async () => {
    server = http.createServer((req, res) => {
      traceparents.push(req.headers.traceparent as string | undefined);
      res.writeHead(req.url?.endsWith('/missing') ? 404 : 200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    providers = textAndTaskProviders(base, {
      metrics: { upstreamAttempt: (id, _ms, outcome, status) => void counted.push([id, outcome, status]) },
      calls: [tracing],
    });
  });
  beforeEach(() => {
    traceparents = [];
    counted = [];
    spans = [];
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('tells the metrics and a second observer of a text protocol call, the header the observer added sent upstream', async () => {
    const text = providers.get('text')!;
    const answer = await callProviderJson(
      text,
      { url: `${base}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: '{}', requestIdHeader: 'x-request-id' },
      { wait: 'first-byte', limit: 1024 },
    );
    expect(answer).to.include({ status: 200 });
    expect(traceparents).to.deep.equal([`00-${spans[0]?.started}`]);
    expect(counted).to.deep.equal([['text', 'ok', 200]]);
    expect(spans).to.deep.equal([{ provider: 'text', method: 'POST', started: spans[0]?.started, outcome: 'ok', status: 200 }]);
  });

  it('tells both of a task provider call on got, a refusal with its status', async () => {
    const answer = await callJson(providers.get('tasks')!, 'GET', '/tasks/missing');
    expect(answer).to.be.instanceOf(UpstreamError).and.include({ kind: 'status', status: 404 });
    expect(traceparents).to.have.length(1);
    expect(traceparents[0]).to.match(/^00-span-\d+$/);
    expect(counted).to.deep.equal([['tasks', 'status', 404]]);
    expect(spans.map(({ provider, method, outcome, status }) => [provider, method, outcome, status])).to.deep.equal([['tasks', 'GET', 'status', 404]]);
    expect(traceparents[0]).to.equal(`00-${spans[0]!.started}`);
  });

  it('tells both of an attempt that never reached the provider', async () => {
    const text = providers.get('text')!;
    const answer = await callProviderJson(
      text,
      { url: 'http://127.0.0.1:1/v1/chat/completions', headers: {}, body: '{}', requestIdHeader: 'x-request-id' },
      { wait: 'first-byte', limit: 1024 },
    );
    expect(answer).to.be.instanceOf(UpstreamError).and.include({ kind: 'connect' });
    expect(counted).to.deep.equal([['text', 'connect', undefined]]);
    expect(spans.map((s) => [s.provider, s.outcome])).to.deep.equal([['text', 'connect']]);
  });

  it('one observer is itself; several each get their own onAttempt value back, in order', () => {
    expect(combineHooks([tracing])).to.equal(tracing);
    const order: string[] = [];
    const first: CallHooks<number> = { onAttempt: () => (order.push('a1'), 1), onResult: (_a, started) => void order.push(`r1:${started}`) };
    const second: CallHooks<string> = { onAttempt: () => (order.push('a2'), 'two'), onResult: (_a, started) => void order.push(`r2:${started}`) };
    const both = combineHooks([first, second]);
    const attempt = { provider: providers.get('text')!, method: 'GET', headers: {} };
    both.onResult(attempt, both.onAttempt(attempt), 'ok', 200);
    expect(order).to.deep.equal(['a1', 'a2', 'r1:1', 'r2:two']);
  });
});
