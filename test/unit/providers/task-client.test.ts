// The got instance of a task provider: polls retried briefly, nothing else; every call counted;
// errors carrying nothing of the URL, the host or the credential.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { meteredCalls, observeCalls } from '../../../src/providers/call.ts';
import { callJson } from '../../../src/providers/json-http.ts';
import { createTaskClient, taskStream } from '../../../src/providers/task-client.ts';
import { UpstreamError } from '../../../src/providers/types.ts';

describe('task client (got, one instance per provider)', () => {
  let server: http.Server;
  let provider: ResolvedProvider;
  let seen: string[] = [];
  let attempts: Array<[string, string, number | undefined]> = [];
  before(async () => {
    let flaky = 0;
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/flaky' && flaky++ % 2 === 0) return void res.writeHead(503).end('{}');
      res.writeHead(req.url === '/down' ? 503 : 200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    provider = {
      id: 'tasks',
      protocol: 'ark-video',
      sandbox: false,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      timeouts: { connect_ms: 1000, first_byte_ms: 1000, response_ms: 1000, idle_ms: 1000 },
      credential: () => 'sk-secret-credential',
    };
    observeCalls(provider, meteredCalls({ upstreamAttempt: (id, _ms, outcome, status) => attempts.push([id, outcome, status]) }));
  });
  beforeEach(() => {
    seen = [];
    attempts = [];
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('retries a poll (GET) after a 503, and counts each attempt', async () => {
    expect(await callJson(provider, 'GET', '/flaky')).to.deep.equal({ status: 200, body: { ok: true } });
    expect(seen).to.deep.equal(['GET /flaky', 'GET /flaky']);
    expect(attempts).to.deep.equal([
      ['tasks', 'status', 503],
      ['tasks', 'ok', 200],
    ]);
  });

  it('never retries a submission or a cancel', async () => {
    expect(await callJson(provider, 'POST', '/down', {}))
      .to.be.instanceOf(UpstreamError)
      .and.include({ kind: 'status', status: 503 });
    expect(await callJson(provider, 'DELETE', '/down'))
      .to.be.instanceOf(UpstreamError)
      .and.include({ kind: 'status', status: 503 });
    expect(seen).to.deep.equal(['POST /down', 'DELETE /down']);
  });

  it('counts a streamed call (the download) by its answer', async () => {
    const stream = taskStream(provider, new URL(`${provider.baseUrl}/file`), { headers: {}, signal: new AbortController().signal });
    let bytes = 0;
    for await (const chunk of stream) bytes += (chunk as Buffer).length;
    expect(bytes).to.be.above(0);
    expect(attempts).to.deep.equal([['tasks', 'ok', 200]]);
  });

  it('fails with an error that names no URL, host or credential', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = createTaskClient({ ...provider, baseUrl: `http://127.0.0.1:${port}` });
    const error = await client(`http://127.0.0.1:${port}/tasks`, { headers: { authorization: 'Bearer sk-secret-credential' } }).catch((e: unknown) => e);
    expect(error).to.include({ name: 'TaskCallError', code: 'ECONNREFUSED' });
    const everything = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).stack);
    expect(everything).to.not.match(/sk-secret|127\.0\.0\.1|\/tasks/);
  });
});
