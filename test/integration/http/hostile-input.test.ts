// Regression tests for what the fuzz suite (test/fuzz/) found in the HTTP layer and the contract:
// each input here once crashed the process, answered 500, or answered outside the contract.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { send, sendRaw } from '../../fuzz/http-client.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const BOUNDARY = 'hostileBoundaryQ3vX';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const part = (disposition: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n${value}\r\n`;

describe('HTTP edges: hostile input the fuzz suite found', () => {
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  const admin = () => ({ authorization: `Bearer ${gateway.adminToken}` });
  const customer = () => ({ authorization: `Bearer ${key}` });
  const get = (path: string, headers: Record<string, string>) => send(gateway.url, { method: 'GET', path, headers }, 5000);
  const errorOf = (text: string) => (JSON.parse(text) as { error: { message: string; code: string | null; param: string | null } }).error;

  before(async () => {
    gateway = await startTestGateway({ env: { BODY_LIMIT_BYTES: '65536' } });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'hostile-input' });
  });
  after(async () => gateway.close());

  it('refuses a multipart part without a name (400) instead of throwing inside the parser and ending the process', async () => {
    for (const disposition of ['form-data; name=""', 'form-data', 'form-data; filename="a.png"']) {
      const body = `${part('form-data; name="model"', 'sandbox/seedance')}${part(disposition, 'x')}--${BOUNDARY}--\r\n`;
      const response = await send(gateway.url, { method: 'POST', path: '/v1/videos', headers: { ...customer(), 'content-type': MULTIPART }, body }, 5000);
      expect(response.status, disposition).to.equal(400);
      expect(errorOf(response.text).code).to.equal('invalid_request');
    }
    expect((await get('/healthz', {})).status).to.equal(200);
  });

  it('refuses NUL in a multipart value before anything is stored, and reserves nothing', async () => {
    const before = await gateway.wallet(customerId);
    const body = `${part('form-data; name="model"', 'sandbox/seedance')}${part('form-data; name="prompt"', 'a\u0000b')}${part('form-data; name="seconds"', '5')}--${BOUNDARY}--\r\n`;
    const response = await send(gateway.url, { method: 'POST', path: '/v1/videos', headers: { ...customer(), 'content-type': MULTIPART }, body }, 5000);
    expect(response.status).to.equal(400);
    expect(errorOf(response.text).param).to.equal('prompt');
    const [tasks] = await gateway.db('video_tasks').where({ customer_id: customerId }).count<Array<{ n: string | number }>>('* as n');
    expect(Number(tasks!.n)).to.equal(0);
    expect(await gateway.wallet(customerId)).to.deep.equal(before);
  });

  it('answers a multipart Content-Length over the limit at once (413), without waiting for bytes that never come', async () => {
    const started = Date.now();
    const response = await send(
      gateway.url,
      {
        method: 'POST',
        path: '/v1/videos',
        headers: { ...customer(), 'content-type': MULTIPART, 'content-length': '99999999999' },
        body: part('form-data; name="model"', 'x'),
      },
      5000,
    );
    expect(response.timedOut).to.equal(false);
    expect(response.status).to.equal(413);
    expect(Date.now() - started).to.be.below(4000);
  });

  it('answers ids outside their pattern, NUL and malformed percent-encoding in a path with a 404 in the error shape', async () => {
    const paths: Array<[string, Record<string, string>]> = [];
    for (const id of ['%00', 'cus_%00', 'cus_a%00b', '%ff', '%', '%ED%A0%80', 'cus_ab-c', `cus_${'a'.repeat(65)}`]) {
      for (const suffix of ['', '/wallet', '/ledger', '/api-keys']) paths.push([`/admin/v1/customers/${id}${suffix}`, admin()]);
    }
    for (const id of ['%00', 'vt_%00', '%ff', 'vt_x.y']) paths.push([`/admin/v1/video-tasks/${id}`, admin()], [`/v1/videos/${id}`, customer()]);
    paths.push(['/v1/models/%ff', {}]);
    for (const [target, headers] of paths) {
      const response = await get(target, headers);
      expect(response.status, target).to.equal(404);
      expect(errorOf(response.text).code, target).to.equal('route_not_found');
    }
    const revoke = await send(gateway.url, { method: 'DELETE', path: '/admin/v1/api-keys/key_%00', headers: admin() }, 5000);
    expect(revoke.status).to.equal(404);
    // Ids in the pattern that exist nowhere are the ordinary not-found.
    expect(errorOf((await get('/admin/v1/customers/cus_nobody', admin())).text).code).to.equal('customer_not_found');
  });

  it('refuses NUL in query filters, `before` beyond 64 bits and times no timestamp holds with a 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['/admin/v1/request-logs?customer_id=a%00b', 'customer_id'],
      ['/admin/v1/request-logs?model=a%00b', 'model'],
      ['/admin/v1/request-logs?endpoint=a%00b', 'endpoint'],
      ['/admin/v1/video-tasks?customer_id=cus_%00', 'customer_id'],
      ['/admin/v1/request-logs?before=9223372036854775808', 'before'],
      [`/admin/v1/customers/${customerId}/ledger?before=9999999999999999999`, 'before'],
      ['/admin/v1/request-logs?from=2026-11-22T23:59:60Z', 'from'],
      ['/admin/v1/request-logs?from=0000-01-01T00:00:00Z', 'from'],
      ['/admin/v1/request-logs?to=9999-12-31T23:59:59-23:59', 'to'],
    ];
    for (const [target, param] of cases) {
      const response = await get(target, admin());
      expect(response.status, target).to.equal(400);
      expect(errorOf(response.text).param, target).to.equal(param);
    }
    // The extremes a timestamp holds are read (a `to` in the future is not final yet: 425).
    for (const [target, status] of [
      ['/admin/v1/request-logs?before=999999999999999999&from=0001-01-01T00:00:00Z', 200],
      ['/admin/v1/request-logs?before=999999999999999999&from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z', 425],
      [`/admin/v1/customers/${customerId}/ledger?before=999999999999999999`, 200],
    ] as const) {
      expect((await get(target, admin())).status, target).to.equal(status);
    }
  });

  it('answers 415 for multipart on JSON-only operations, a status their contracts declare', async () => {
    const publicSpec = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated/openapi.json'), 'utf8'));
    const adminSpec = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated/admin.json'), 'utf8'));
    const body = `${part('form-data; name="name"', 'x')}--${BOUNDARY}--\r\n`;
    for (const [target, spec, pathKey, headers] of [
      ['/v1/messages', publicSpec, '/v1/messages', { 'x-api-key': key }],
      ['/v1/messages/count_tokens', publicSpec, '/v1/messages/count_tokens', { 'x-api-key': key }],
      ['/admin/v1/customers', adminSpec, '/admin/v1/customers', admin()],
      [`/admin/v1/customers/${customerId}/api-keys`, adminSpec, '/admin/v1/customers/{customer_id}/api-keys', admin()],
      [`/admin/v1/customers/${customerId}/credits`, adminSpec, '/admin/v1/customers/{customer_id}/credits', admin()],
      ['/admin/v1/video-tasks/vt_nobody/resolve', adminSpec, '/admin/v1/video-tasks/{task_id}/resolve', admin()],
    ] as const) {
      const response = await send(gateway.url, { method: 'POST', path: target, headers: { ...headers, 'content-type': MULTIPART }, body }, 5000);
      expect(response.status, target).to.equal(415);
      expect(Object.keys(spec.paths[pathKey].post.responses), target).to.include('415');
    }
  });

  it("answers what the HTTP parser refuses with a JSON error in the path's shape and a request-id", async () => {
    const cases: Array<[string, number, 'openai' | 'anthropic']> = [
      ['GET /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 400, 'openai'],
      ['POST /admin/v1/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'openai'],
      ['POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'anthropic'],
      [`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'openai'],
      ['GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400, 'openai'],
      ['GET /v1/models HTTP/1.1\r\n\r\n', 400, 'openai'], // HTTP/1.1 without Host
      ['POST /v1/messages HTTP/1.1\r\n\r\n', 400, 'anthropic'],
      ['POST /v1/messages HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nContent-Length: 2\r\n\r\n{}', 417, 'anthropic'],
      ['GET /v1/models HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n', 417, 'openai'],
    ];
    for (const [bytes, status, shape] of cases) {
      const response = await sendRaw(gateway.url, bytes, 5000);
      expect(response.status, bytes.slice(0, 60)).to.equal(status);
      expect(String(response.headers['request-id'])).to.match(/^req_/);
      const body = JSON.parse(response.text) as Record<string, any>;
      if (shape === 'anthropic') expect(body).to.include({ type: 'error', request_id: response.headers['request-id'] });
      else expect(body.error).to.have.keys('message', 'type', 'code', 'param');
    }
    expect((await get('/healthz', {})).status).to.equal(200);
    expect((await sendRaw(gateway.url, 'GET /healthz HTTP/1.0\r\n\r\n', 5000)).status).to.equal(200); // Host is an HTTP/1.1 rule
  });

  it("refuses a compressed body with a 415 in the endpoint's shape, instead of calling it invalid JSON", async () => {
    const { gzipSync } = await import('node:zlib');
    const json = JSON.stringify({ model: 'sandbox/claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    for (const [path, shape] of [
      ['/v1/messages', 'anthropic'],
      ['/v1/chat/completions', 'openai'],
      ['/v1/videos', 'openai'],
    ] as const) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { ...customer(), 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(json),
      });
      expect(response.status, path).to.equal(415);
      const body = (await response.json()) as any;
      if (shape === 'anthropic') expect(body).to.deep.include({ type: 'error' });
      else expect(body.error).to.include({ code: 'unsupported_media_type' });
      expect(JSON.stringify(body)).to.include('Content-Encoding');
    }
    // No coding is no coding: identity, an empty header, identity sent twice.
    for (const encoding of ['identity', '', 'Identity, identity']) {
      const plain = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { ...customer(), 'content-type': 'application/json', 'content-encoding': encoding },
        body: json,
      });
      expect(plain.status, `"${encoding}"`).to.equal(200);
    }
    const stacked = await send(
      gateway.url,
      {
        method: 'POST',
        path: '/v1/messages',
        headers: { ...customer(), 'content-type': 'application/json', 'content-encoding': 'identity, gzip' },
        body: json,
      },
      5000,
    );
    expect(stacked.status).to.equal(415);
    expect((await gateway.wallet(customerId)).reserved).to.equal('0.000000');
  });

  it('answers a body cut short by the client once, in the shape of the request it cut', async () => {
    const body = JSON.stringify({ model: 'sandbox/claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'hello there, how are you' }] });
    const cut = (apiKey: string) =>
      `POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\n` +
      `Content-Length: ${body.length + 10}\r\n\r\n${body}`; // ten bytes never come: the client ends its side
    // Refused before its body is read (401), then cut: no second, unsolicited response follows.
    const refused = await sendRaw(gateway.url, cut('sk-gw-not-a-key'), 5000);
    expect(refused.status).to.equal(401);
    expect(refused.text.match(/HTTP\/1\.1 \d{3} /g), refused.text).to.equal(null);
    expect(JSON.parse(refused.text)).to.deep.include({ type: 'error' });
    // Cut while its body is read: a 400 in the Messages error shape, not the OpenAI one.
    const truncated = await sendRaw(gateway.url, cut(key), 5000);
    expect(truncated.status).to.equal(400);
    expect(truncated.text.match(/HTTP\/1\.1 \d{3} /g), truncated.text).to.equal(null);
    expect(JSON.parse(truncated.text)).to.deep.include({ type: 'error' });
    expect(JSON.parse(truncated.text).error.type).to.equal('invalid_request_error');
    expect((await gateway.wallet(customerId)).reserved).to.equal('0.000000');
  });
});
