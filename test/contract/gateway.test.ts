import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { freePort, prismBin, startListening, type RunningProcess } from '../helpers/prism.ts';

interface Violation {
  location: string[];
  message: string;
}

/**
 * The gateway behind `prism proxy`: Prism checks every response against generated/*.json and
 * reports mismatches in the `sl-violations` header. Every implemented operation is exercised,
 * errors included; request violations (deliberately bad input) are ignored.
 */
describe('contract: the gateway answers as generated/ says (Prism proxy)', function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let publicProxy: RunningProcess;
  let adminProxy: RunningProcess;
  let publicPort: number;
  let adminPort: number;
  const seen: Array<{ call: string; status: number; violations: Violation[] }> = [];

  before(async () => {
    gateway = await startTestGateway({ env: { VALIDATE_RESPONSES: 'false' } });
    [publicPort, adminPort] = [await freePort(), await freePort()];
    [publicProxy, adminProxy] = await Promise.all([
      startListening(prismBin, ['proxy', 'generated/openapi.json', gateway.url, '-h', '127.0.0.1', '-p', String(publicPort)], publicPort),
      startListening(prismBin, ['proxy', 'generated/admin.json', gateway.url, '-h', '127.0.0.1', '-p', String(adminPort)], adminPort),
    ]);
  });
  after(async () => {
    await Promise.all([publicProxy?.stop(), adminProxy?.stop()]);
    await gateway?.close();
  });

  async function call(port: number, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    });
    const header = response.headers.get('sl-violations');
    const violations = ((header ? JSON.parse(header) : []) as Violation[]).filter((v) => v.location[0] === 'response');
    const text = await response.text();
    seen.push({ call: `${method} ${path}`, status: response.status, violations });
    expect(violations, `${method} ${path} -> ${response.status}: ${JSON.stringify(violations)}`).to.deep.equal([]);
    const json = (response.headers.get('content-type') ?? '').includes('json');
    return { status: response.status, body: text && json ? JSON.parse(text) : text || undefined };
  }

  it('public operations, successes and errors', async () => {
    const { key } = await gateway.customerWithKey();
    const auth = { authorization: `Bearer ${key}` };
    const p = (method: string, path: string, options?: Parameters<typeof call>[3]) => call(publicPort, method, path, options);

    expect((await p('GET', '/healthz')).status).to.equal(200);
    expect((await p('GET', '/readyz')).status).to.equal(200);
    expect((await p('GET', '/v1/models')).status).to.equal(200);
    expect((await p('GET', '/v1/models', { headers: auth })).status).to.equal(200);
    expect((await p('GET', '/v1/models', { headers: { authorization: 'Bearer sk-gw-wrong' } })).status).to.equal(401);
    expect((await p('GET', '/v1/models/pricing', { headers: auth })).status).to.equal(200);
    expect((await p('GET', '/v1/models/sandbox%2Fclaude-sonnet', { headers: auth })).status).to.equal(200);
    expect((await p('GET', '/v1/models/nobody%2Fnothing', { headers: auth })).status).to.equal(404);
    const message = { model: 'sandbox/claude-sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
    expect((await p('POST', '/v1/messages', { body: message })).status).to.equal(401);
    expect((await p('POST', '/v1/messages', { body: { model: 'x' }, headers: { 'x-api-key': key } })).status).to.equal(400);
    // sandbox/claude-sonnet has a free quota; claude-haiku needs credit this customer does not have.
    expect((await p('POST', '/v1/messages', { body: message, headers: { 'x-api-key': key } })).status).to.equal(200);
    expect((await p('POST', '/v1/messages', { body: { ...message, model: 'sandbox/claude-haiku' }, headers: auth })).status).to.equal(402);
    expect((await p('POST', '/v1/messages', { body: { ...message, model: 'nobody/nothing' }, headers: auth })).status).to.equal(404);
    expect(
      (await p('POST', '/v1/messages', { body: { ...message, messages: [{ role: 'user', content: 'hi [[sim error=529]]' }] }, headers: auth })).status,
    ).to.equal(529);
    expect(
      (await p('POST', '/v1/messages', { body: { ...message, messages: [{ role: 'user', content: 'hi [[sim error=429]]' }] }, headers: auth })).status,
    ).to.equal(429);
    expect(
      (await p('POST', '/v1/messages/count_tokens', { body: { model: 'sandbox/claude-sonnet', messages: message.messages }, headers: auth })).status,
    ).to.equal(200);
  });

  it('chat completions, successes and errors', async () => {
    const { key, customerId } = await gateway.customerWithKey();
    const auth = { authorization: `Bearer ${key}` };
    const p = (method: string, path: string, options?: Parameters<typeof call>[3]) => call(publicPort, method, path, options);
    const chat = { model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'hi' }] };
    const ask = (body: Record<string, unknown>, headers: Record<string, string> = auth) =>
      p('POST', '/v1/chat/completions', { body: { ...chat, ...body }, headers });
    expect((await ask({}, {})).status).to.equal(401);
    expect((await ask({})).status).to.equal(402); // no credit yet, no free quota
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
    expect((await ask({ max_completion_tokens: 16 })).status).to.equal(200);
    expect((await ask({ stream: true })).status).to.equal(200);
    expect((await ask({ model: 'sandbox/claude-haiku' })).status).to.equal(400);
    expect((await ask({ n: 0 })).status).to.equal(400);
    expect((await ask({ not_an_openai_field: 1 })).status).to.equal(400);
    expect((await ask({ model: 'nobody/nothing' })).status).to.equal(404);
    expect((await ask({ messages: [{ role: 'user', content: 'hi [[sim error=429]]' }] })).status).to.equal(429);
    expect((await ask({ messages: [{ role: 'user', content: 'hi [[sim cut=1]]' }] })).status).to.equal(502);
  });

  it('responses, successes and errors', async () => {
    const { key, customerId } = await gateway.customerWithKey();
    const auth = { authorization: `Bearer ${key}` };
    const p = (method: string, path: string, options?: Parameters<typeof call>[3]) => call(publicPort, method, path, options);
    const ask = (body: Record<string, unknown>, headers: Record<string, string> = auth) =>
      p('POST', '/v1/responses', { body: { model: 'sandbox/responses-model', input: 'hi', ...body }, headers });
    expect((await ask({}, {})).status).to.equal(401);
    expect((await ask({})).status).to.equal(402); // no credit yet: insufficient_quota
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '2.00', reference: 'fund responses' });
    expect((await ask({ max_output_tokens: 16 })).status).to.equal(200);
    expect((await ask({ stream: true })).status).to.equal(200);
    expect((await ask({ input: 'hi [[sim cut=1]]', stream: true })).status).to.equal(200);
    expect((await ask({ model: 'sandbox/chat-model' })).status).to.equal(400);
    expect((await ask({ max_output_tokens: 0 })).status).to.equal(400);
    expect((await ask({ model: 'nobody/nothing' })).status).to.equal(404);
    expect((await ask({ input: 'hi [[sim error=429]]' })).status).to.equal(429);
    expect((await ask({ input: 'hi [[sim cut=1]]' })).status).to.equal(502);
    const stored = await ask({ input: 'keep me [[sim queued_ms=60000]]', background: true });
    const id = stored.body.id as string;
    expect((await p('GET', `/v1/responses/${id}`, { headers: auth })).status).to.equal(200);
    expect((await p('GET', `/v1/responses/${id}/input_items?limit=5`, { headers: auth })).status).to.equal(200);
    expect((await p('POST', `/v1/responses/${id}/cancel`, { headers: auth })).status).to.equal(200);
    expect((await p('DELETE', `/v1/responses/${id}`, { headers: auth })).status).to.equal(200);
    expect((await p('GET', `/v1/responses/${id}`, { headers: auth })).status).to.equal(404);
    expect((await p('POST', `/v1/responses/${id}/cancel`, { headers: auth })).status).to.equal(404);
    const plain = await ask({ max_output_tokens: 16 });
    expect((await p('POST', `/v1/responses/${plain.body.id}/cancel`, { headers: auth })).status).to.equal(400);
    const counted = await p('POST', '/v1/responses/input_tokens', { body: { model: 'sandbox/responses-model', input: 'hi' }, headers: auth });
    expect(counted.status).to.equal(200);
    expect(
      (await p('POST', '/v1/responses/input_tokens', { body: { model: 'sandbox/responses-model', previous_response_id: 'resp_x' }, headers: auth })).status,
    ).to.equal(404);
    expect((await p('POST', '/v1/responses/compact', { body: { model: 'sandbox/responses-model', input: 'hi' }, headers: auth })).status).to.equal(200);
    expect((await p('POST', '/v1/responses/compact', { body: { model: 'sandbox/chat-model', input: 'hi' }, headers: auth })).status).to.equal(400);
  });

  it('video operations, successes and errors', async () => {
    const { key, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
    const auth = { authorization: `Bearer ${key}` };
    const p = (method: string, path: string, options?: Parameters<typeof call>[3]) => call(publicPort, method, path, options);
    const body = { model: 'sandbox/seedance', prompt: 'a cat [[sim queued_ms=60000]]', seconds: 5, resolution: '720p' };
    const created = await p('POST', '/v1/videos', { body, headers: { ...auth, 'idempotency-key': 'k1' } });
    expect(created.status).to.equal(202);
    expect((await p('POST', '/v1/videos', { body: { ...body, seconds: 10 }, headers: { ...auth, 'idempotency-key': 'k1' } })).status).to.equal(422);
    expect((await p('POST', '/v1/videos', { body: { ...body, seconds: 7 }, headers: auth })).status).to.equal(400);
    expect((await p('POST', '/v1/videos', { body: { ...body, model: 'nobody/x' }, headers: auth })).status).to.equal(404);
    expect((await p('GET', `/v1/videos/${created.body.task_id}`, { headers: auth })).status).to.equal(200);
    expect((await p('GET', '/v1/videos/vt_nobody', { headers: auth })).status).to.equal(404);
    expect((await p('GET', '/v1/videos/not-a-task-id', { headers: auth })).status).to.equal(404);
    expect((await p('GET', '/v1/videos?limit=1', { headers: auth })).status).to.equal(200);
    expect((await p('GET', '/v1/videos?after=vt_nobody', { headers: auth })).status).to.equal(400);
    expect((await p('POST', '/v1/videos', { body: { ...body, generate_audio: 'maybe' }, headers: auth })).status).to.equal(400);
    expect((await p('GET', `/v1/videos/${created.body.task_id}/content`, { headers: auth })).status).to.equal(404);
    expect((await p('DELETE', `/v1/videos/${created.body.task_id}`, { headers: auth })).status).to.equal(200);
    expect((await p('DELETE', `/v1/videos/${created.body.task_id}`, { headers: auth })).status).to.equal(409);

    const done = await p('POST', '/v1/videos', { body: { ...body, prompt: 'a cat [[sim queued_ms=0 running_ms=0]]' }, headers: auth });
    for (let i = 0; i < 100 && (await gateway.db('video_tasks').where({ id: done.body.task_id }).first()).status !== 'completed'; i++) {
      await gateway.services.videoWorker.processBatch();
      await new Promise((r) => setTimeout(r, 30));
    }
    const file = `/v1/videos/${done.body.task_id}/content`;
    expect((await p('GET', file, { headers: auth })).status).to.equal(200);
    expect((await p('GET', file, { headers: { ...auth, range: 'bytes=0-99' } })).status).to.equal(206);
    expect((await p('GET', file, { headers: { ...auth, range: 'bytes=999999999-' } })).status).to.equal(416);
    expect((await p('GET', `${file}?variant=thumbnail`, { headers: auth })).status).to.equal(400);
  });

  it('admin operations, successes and errors', async () => {
    const auth = { authorization: `Bearer ${gateway.adminToken}` };
    const a = (method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
      call(adminPort, method, path, { ...options, headers: { ...auth, ...options.headers } });

    const customer = await a('POST', '/admin/v1/customers', { body: { name: 'Acme', external_reference: 'c-1' } });
    expect(customer.status).to.equal(201);
    expect((await a('POST', '/admin/v1/customers', { body: { name: 'Other', external_reference: 'c-1' } })).status).to.equal(409);
    expect((await a('POST', '/admin/v1/customers', { body: { name: '' } })).status).to.equal(400);
    expect((await a('GET', `/admin/v1/customers/${customer.body.id}`)).status).to.equal(200);
    expect((await a('GET', '/admin/v1/customers/cus_nobody')).status).to.equal(404);
    expect((await a('GET', '/admin/v1/customers/cus_nobody', { headers: { authorization: 'Bearer nope' } })).status).to.equal(401);
    const key = await a('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, { body: { name: 'ci', allowed_models: ['sandbox/claude-haiku'] } });
    expect(key.status).to.equal(201);
    expect((await a('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, { body: { allowed_models: ['nobody/x'] } })).status).to.equal(400);
    expect((await a('POST', '/admin/v1/customers/cus_nobody/api-keys', { body: {} })).status).to.equal(404);
    expect((await a('GET', `/admin/v1/customers/${customer.body.id}/api-keys`)).status).to.equal(200);
    expect((await a('GET', '/admin/v1/customers/cus_nobody/api-keys')).status).to.equal(404);
    expect((await a('DELETE', `/admin/v1/api-keys/${key.body.id}`)).status).to.equal(200);
    expect((await a('DELETE', '/admin/v1/api-keys/key_nobody')).status).to.equal(404);
    expect((await a('POST', '/admin/v1/catalogue/reload')).status).to.equal(200);

    const credits = `/admin/v1/customers/${customer.body.id}/credits`;
    expect((await a('POST', credits, { body: { amount: '10.00', reference: 'inv-1' } })).status).to.equal(201);
    expect((await a('POST', credits, { body: { amount: '10.00', reference: 'inv-1' } })).status).to.equal(200);
    expect((await a('POST', credits, { body: { amount: '12.00', reference: 'inv-1' } })).status).to.equal(409);
    expect((await a('POST', credits, { body: { amount: '-1', reference: 'inv-2' } })).status).to.equal(400);
    expect((await a('POST', '/admin/v1/customers/cus_nobody/credits', { body: { amount: '1', reference: 'x' } })).status).to.equal(404);
    expect((await a('GET', `/admin/v1/customers/${customer.body.id}/wallet`)).status).to.equal(200);
    expect((await a('GET', '/admin/v1/customers/cus_nobody/wallet')).status).to.equal(404);
    expect((await a('GET', `/admin/v1/customers/${customer.body.id}/ledger?limit=1`)).status).to.equal(200);
    expect((await a('GET', '/admin/v1/customers/cus_nobody/ledger')).status).to.equal(404);
    expect((await a('GET', '/admin/v1/ledger/reconciliation')).status).to.equal(200);
    await gateway.requestLogs('');
    const logs = await a('GET', '/admin/v1/request-logs?limit=5');
    expect(logs.status).to.equal(200);
    expect(logs.body.data.length).to.be.greaterThan(0);
    expect((await a('GET', '/admin/v1/request-logs?limit=9999')).status).to.equal(400);
    const metrics = await a('GET', '/metrics');
    expect(metrics.status).to.equal(200);
    expect(metrics.body).to.include('# TYPE gateway_http_requests_total counter');
    expect((await a('GET', '/metrics', { headers: { authorization: 'Bearer nope' } })).status).to.equal(401);
  });

  it("key controls and the customer's own account, successes and errors", async () => {
    const a = (method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
      call(adminPort, method, path, { ...options, headers: { authorization: `Bearer ${gateway.adminToken}`, ...options.headers } });
    const p = (method: string, path: string, options?: Parameters<typeof call>[3]) => call(publicPort, method, path, options);
    const { key, keyId, customerId } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: `fund-${customerId}` });
    const auth = { authorization: `Bearer ${key}` };

    expect((await a('GET', '/admin/v1/customers?limit=2&q=test')).status).to.equal(200);
    expect((await a('GET', '/admin/v1/customers?limit=0')).status).to.equal(400);
    expect((await a('GET', `/admin/v1/api-keys/${keyId}`)).status).to.equal(200);
    expect((await a('GET', '/admin/v1/api-keys/key_nobody')).status).to.equal(404);
    expect((await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { limits: { requests_per_minute: 0 } } })).status).to.equal(400);
    expect((await a('PATCH', '/admin/v1/api-keys/key_nobody', { body: { name: 'x' } })).status).to.equal(404);
    expect(
      (await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { limits: { requests_per_minute: 3, spend_limit: { amount: '0.001', period: 'day' } } } }))
        .status,
    ).to.equal(200);

    const message = (content: string, headers: Record<string, string> = { 'x-api-key': key }) =>
      p('POST', '/v1/messages', { body: { model: 'sandbox/claude-haiku', max_tokens: 16, messages: [{ role: 'user', content }] }, headers });
    expect((await message('hi')).status).to.equal(200);
    expect((await message('hi', { ...auth, 'x-api-key': key })).status).to.equal(200);
    expect(
      (
        await p('POST', '/v1/messages', {
          body: { model: 'sandbox/claude-haiku', max_tokens: 4096, messages: [{ role: 'user', content: 'x' }] },
          headers: auth,
        })
      ).status,
    ).to.equal(402);
    expect((await message('third')).status).to.equal(200);
    expect((await message('over the rate')).status).to.equal(429);
    const chat = { model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'hi' }] };
    expect((await p('POST', '/v1/chat/completions', { body: chat, headers: auth })).status).to.equal(429);
    expect(
      (await p('POST', '/v1/videos', { body: { model: 'sandbox/compatible-video', prompt: 'x', seconds: 4, resolution: '720p' }, headers: auth })).status,
    ).to.equal(429);
    expect((await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { limits: { requests_per_minute: null } } })).status).to.equal(200);
    expect((await p('POST', '/v1/chat/completions', { body: { ...chat, max_tokens: 4096 }, headers: auth })).status).to.equal(402);
    expect(
      (await p('POST', '/v1/videos', { body: { model: 'sandbox/compatible-video', prompt: 'x', seconds: 4, resolution: '720p' }, headers: auth })).status,
    ).to.equal(402);

    await gateway.settled();
    await gateway.requestLogs(`customer_id=${customerId}`);
    for (const path of [
      '/v1/wallet',
      '/v1/key',
      '/v1/requests?limit=5',
      '/v1/usage',
      '/v1/dashboard/billing/subscription',
      '/v1/dashboard/billing/usage?start_date=2026-01-01&end_date=2026-02-01',
    ]) {
      expect((await p('GET', path, { headers: auth })).status, path).to.equal(200);
    }
    expect((await p('GET', '/v1/usage?start_date=2026-02-01&end_date=2026-01-01', { headers: auth })).status).to.equal(400);
    expect((await p('GET', '/v1/requests?after=abc', { headers: auth })).status).to.equal(400);
    expect((await p('GET', '/v1/wallet')).status).to.equal(401);

    expect((await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { expires_at: '2020-01-01T00:00:00Z' } })).status).to.equal(200);
    expect((await message('expired')).status).to.equal(401);
    expect((await p('GET', '/v1/key', { headers: auth })).status).to.equal(401);
    const rotated = await a('POST', `/admin/v1/api-keys/${keyId}/rotate`, { body: { grace_seconds: 0 } });
    expect(rotated.status).to.equal(200);
    await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { expires_at: null } });
    const fresh = { authorization: `Bearer ${rotated.body.key}` };
    expect((await a('PATCH', `/admin/v1/customers/${customerId}`, { body: { status: 'suspended' } })).status).to.equal(200);
    expect((await a('PATCH', `/admin/v1/customers/${customerId}`, { body: { status: 'gone' } })).status).to.equal(400);
    expect((await a('PATCH', '/admin/v1/customers/cus_nobody', { body: { name: 'x' } })).status).to.equal(404);
    expect((await message('suspended', { 'x-api-key': rotated.body.key })).status).to.equal(403);
    for (const path of ['/v1/wallet', '/v1/models', '/v1/models/pricing', `/v1/models/${encodeURIComponent('sandbox/claude-haiku')}`, '/v1/videos/vt_x']) {
      expect((await p('GET', path, { headers: fresh })).status, path).to.equal(403);
    }
    expect((await p('POST', '/v1/chat/completions', { body: chat, headers: fresh })).status).to.equal(403);
    expect((await a('DELETE', `/admin/v1/api-keys/${keyId}`)).status).to.equal(200);
    expect((await a('POST', `/admin/v1/api-keys/${keyId}/rotate`, { body: {} })).status).to.equal(409);
    expect((await a('PATCH', `/admin/v1/api-keys/${keyId}`, { body: { name: 'x' } })).status).to.equal(409);
    expect((await a('POST', '/admin/v1/api-keys/key_nobody/rotate', { body: {} })).status).to.equal(404);
  });

  it('saw no response violation at all', () => {
    expect(seen.length).to.be.greaterThan(20);
    expect(seen.filter((s) => s.violations.length > 0)).to.deep.equal([]);
  });
});
