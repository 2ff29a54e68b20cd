// CORS on the wire: what a browser asks (a preflight) and what it needs on every answer to let a
// page read it. test/e2e/browser.test.ts has the official SDKs do it in Chromium.
import { expect } from 'chai';
import { send } from '../../fuzz/http-client.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const PAGE = 'https://app.example.com';
const SDK_HEADERS = 'anthropic-dangerous-direct-browser-access,anthropic-version,content-type,x-api-key,x-stainless-arch,x-stainless-retry-count';

describe('CORS: browser pages calling the public API', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  let key: string;
  const gateways: TestGateway[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const started = await startTestGateway({ env, reuseDatabase: gateways.length > 0 });
    gateways.push(started);
    return started;
  };
  before(async () => {
    gateway = await start({ CORS_ORIGINS: '*' });
    const customer = await gateway.customerWithKey();
    key = customer.key;
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '5.00', reference: 'cors' });
  });
  after(async () => {
    for (const started of gateways.reverse()) await started.close();
  });

  const preflight = (target: TestGateway, path: string, method: string, origin = PAGE, headers = SDK_HEADERS) =>
    send(
      target.url,
      { method: 'OPTIONS', path, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } },
      5000,
    );
  const message = (target: TestGateway, origin: string | undefined, apiKey = key, stream = false) =>
    send(
      target.url,
      {
        method: 'POST',
        path: '/v1/messages',
        headers: { ...(origin ? { origin } : {}), 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 20, stream, messages: [{ role: 'user', content: 'Hi' }] }),
      },
      5000,
    );

  it('answers a preflight for a method the path serves with 204, the methods, the asked headers and a cache time, before any key; no request-log row', async () => {
    for (const [path, method, methods] of [
      ['/v1/messages', 'POST', 'POST'],
      ['/v1/chat/completions', 'POST', 'POST'],
      ['/v1/models', 'GET', 'GET, HEAD'],
      ['/v1/videos/vt_abc', 'DELETE', 'DELETE, GET, HEAD'],
    ] as const) {
      const response = await preflight(gateway, path, method);
      expect(response.status, path).to.equal(204);
      expect(response.text, path).to.equal('');
      expect(response.headers, path).to.include({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': methods,
        'access-control-allow-headers': SDK_HEADERS,
        'access-control-max-age': '7200',
      });
      expect(response.headers['access-control-allow-credentials'], path).to.equal(undefined);
    }
    // Access-logged (at debug) as a preflight; the request log is for calls, not for the browser's questions.
    const asked = await preflight(gateway, '/v1/messages', 'POST');
    const id = asked.headers['request-id'] as string;
    const line = () => gateway.logs.find((entry) => entry.request_id === id && entry.msg === 'request');
    for (let i = 0; i < 100 && !line(); i++) await new Promise((r) => setTimeout(r, 20)); // written once the response closed
    expect(line()).to.include({ operation: 'cors_preflight', status: 204 });
    await gateway.requestLogs('', 0); // flushes the request log
    expect((await gateway.admin('GET', '/admin/v1/request-logs?limit=500')).body.data.map((row: any) => row.request_id)).to.not.include(id);
  });

  it('lets the page read every answer, errors and streams included, and says nothing to a caller without Origin', async () => {
    const ok = await message(gateway, PAGE);
    expect(ok.status).to.equal(200);
    expect(ok.headers).to.include({ 'access-control-allow-origin': '*', 'access-control-expose-headers': '*' });
    const streamed = await message(gateway, PAGE, key, true);
    expect(streamed.headers['content-type']).to.match(/^text\/event-stream/);
    expect(streamed.headers['access-control-allow-origin']).to.equal('*');
    expect(streamed.text).to.include('event: message_stop');
    const refused = await message(gateway, PAGE, 'sk-gw-wrong');
    expect(refused.status).to.equal(401);
    expect(refused.headers['access-control-allow-origin']).to.equal('*');
    const models = await send(gateway.url, { method: 'GET', path: '/v1/models', headers: { origin: PAGE } }, 5000);
    expect(models.headers['access-control-allow-origin']).to.equal('*');
    expect(models.headers['vary']).to.equal('Authorization, x-api-key, anthropic-version, Origin');
    const server = await message(gateway, undefined);
    expect(server.status).to.equal(200);
    expect(server.headers['access-control-allow-origin']).to.equal(undefined);
  });

  it('fails a preflight for a method the path does not serve (405 with Allow), and a path nothing is served at (404)', async () => {
    const wrong = await preflight(gateway, '/v1/messages', 'GET');
    expect(wrong.status).to.equal(405);
    expect(wrong.headers['allow']).to.equal('POST');
    expect(wrong.headers['access-control-allow-methods']).to.equal(undefined);
    expect((await preflight(gateway, '/v1/nothing', 'POST')).status).to.equal(404);
    const plain = await send(gateway.url, { method: 'OPTIONS', path: '/v1/messages', headers: { origin: PAGE } }, 5000);
    expect(plain.status).to.equal(405);
  });

  it('never answers cross-origin on the operators surface', async () => {
    const asked = await preflight(gateway, '/admin/v1/customers', 'GET');
    expect(asked.status).to.equal(405);
    expect(asked.headers['access-control-allow-origin']).to.equal(undefined);
    const read = await send(
      gateway.url,
      { method: 'GET', path: '/admin/v1/customers', headers: { origin: PAGE, authorization: `Bearer ${gateway.adminToken}` } },
      5000,
    );
    expect(read.status).to.equal(200);
    expect(read.headers['access-control-allow-origin']).to.equal(undefined);
    const metrics = await send(
      gateway.url,
      { method: 'GET', path: '/metrics', headers: { origin: PAGE, authorization: `Bearer ${gateway.adminToken}` } },
      5000,
    );
    expect(metrics.headers['access-control-allow-origin']).to.equal(undefined);
  });

  it('with CORS_ORIGINS listing origins: names the allowed one (and varies by Origin), ignores the others', async () => {
    const listed = await start({ CORS_ORIGINS: `${PAGE}, http://localhost:5173` });
    const allowed = await preflight(listed, '/v1/messages', 'POST', 'http://localhost:5173');
    expect(allowed.status).to.equal(204);
    expect(allowed.headers).to.include({ 'access-control-allow-origin': 'http://localhost:5173' });
    expect(allowed.headers['vary']).to.include('Origin');
    const answer = await message(listed, PAGE);
    expect(answer.status).to.equal(200);
    expect(answer.headers).to.include({ 'access-control-allow-origin': PAGE, vary: 'Origin' });
    const stranger = await preflight(listed, '/v1/messages', 'POST', 'https://evil.example');
    expect(stranger.status).to.equal(405);
    expect(stranger.headers['access-control-allow-origin']).to.equal(undefined);
    const strangerAnswer = await message(listed, 'https://evil.example');
    expect(strangerAnswer.status).to.equal(200); // a server-side caller may send any Origin; only browsers enforce CORS
    expect(strangerAnswer.headers['access-control-allow-origin']).to.equal(undefined);
    expect(strangerAnswer.headers['vary']).to.equal('Origin'); // the answer depends on who asks, for caches
    expect((await message(listed, undefined)).headers['vary']).to.equal('Origin');
  });

  it('by default (CORS_ORIGINS unset) and with none: no preflight succeeds and no answer names an origin', async () => {
    for (const closed of [await start(), await start({ CORS_ORIGINS: 'none' })]) {
      expect((await preflight(closed, '/v1/messages', 'POST')).status).to.equal(405);
      const answer = await message(closed, PAGE);
      expect(answer.status).to.equal(200);
      expect(answer.headers['access-control-allow-origin']).to.equal(undefined);
      const models = await send(closed.url, { method: 'GET', path: '/v1/models', headers: { origin: PAGE } }, 5000);
      expect(models.headers['access-control-allow-origin']).to.equal(undefined);
    }
  });
});
