// Task-style upstream calls (video): JSON answers through the provider's got instance.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ResolvedProvider } from '../../../src/catalogue/types.ts';
import { callJson } from '../../../src/providers/json-http.ts';
import { UpstreamError } from '../../../src/providers/types.ts';

describe('callJson (task upstreams)', () => {
  let server: http.Server;
  let provider: ResolvedProvider;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 50);
      if (req.url === '/refuse') return void res.writeHead(429, { 'retry-after': '3' }).end('{"error":"slow down"}');
      if (req.url === '/huge') return void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      if (req.url === '/broken') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'task_1', seen: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    provider = {
      id: 'tasks',
      protocol: 'ark-video',
      sandbox: false,
      baseUrl: `http://127.0.0.1:${port}/`,
      timeouts: { connect_ms: 1000, first_byte_ms: 1000, response_ms: 1000, idle_ms: 1000 },
      credential: () => 'secret-credential',
    };
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers the parsed body with the credential sent as a bearer token', async () => {
    expect(await callJson(provider, 'GET', '/tasks/1')).to.deep.equal({ status: 200, body: { id: 'task_1', seen: 'Bearer secret-credential' } });
  });

  it('turns a refusal and a body that is not JSON into upstream errors (the refusal keeps retry-after)', async () => {
    const refused = await callJson(provider, 'GET', '/refuse');
    expect(refused).to.be.instanceOf(UpstreamError).and.include({ kind: 'status', status: 429, retryable: true });
    expect((refused as UpstreamError).headers).to.deep.equal({ 'retry-after': '3' });
    expect(await callJson(provider, 'GET', '/broken'))
      .to.be.instanceOf(UpstreamError)
      .and.include({ kind: 'protocol' });
    expect(await callJson(provider, 'GET', '/huge'), 'past 1 MiB is not a task status')
      .to.be.instanceOf(UpstreamError)
      .and.include({ kind: 'protocol' });
  });

  it('polls many tasks at once without piling listeners on a shared signal', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => callJson(provider, 'GET', '/slow')));
      expect(answers.every((a) => !(a instanceof UpstreamError) && a.status === 200)).to.equal(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).to.not.include('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
