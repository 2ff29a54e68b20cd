import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { loadSpecApi } from '../../src/http/openapi.ts';
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
    return { status: response.status, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text || undefined };
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
    expect((await p('POST', '/v1/messages', { body: { ...message, messages: [{ role: 'user', content: 'hi [[sim error=529]]' }] }, headers: auth })).status).to.equal(529);
    expect((await p('POST', '/v1/messages', { body: { ...message, messages: [{ role: 'user', content: 'hi [[sim error=429]]' }] }, headers: auth })).status).to.equal(429);
    expect((await p('POST', '/v1/messages/count_tokens', { body: { model: 'sandbox/claude-sonnet', messages: message.messages }, headers: auth })).status).to.equal(200);
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
    expect((await p('DELETE', `/v1/videos/${created.body.task_id}`, { headers: auth })).status).to.equal(200);
    expect((await p('DELETE', `/v1/videos/${created.body.task_id}`, { headers: auth })).status).to.equal(409);
  });

  it('admin operations, successes and errors', async () => {
    const auth = { authorization: `Bearer ${gateway.adminToken}` };
    const a = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(adminPort, method, path, { ...options, headers: { ...auth, ...options.headers } });

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

  it('saw no response violation at all', () => {
    expect(seen.length).to.be.greaterThan(20);
    expect(seen.filter((s) => s.violations.length > 0)).to.deep.equal([]);
  });
});
