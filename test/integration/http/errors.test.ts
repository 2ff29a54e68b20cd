import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('HTTP edges: error shapes, limits, unknown query parameters', () => {
  let gateway: TestGateway;
  let key: string;
  before(async () => {
    gateway = await startTestGateway({ env: { BODY_LIMIT_BYTES: '4096' } });
    ({ key } = await gateway.customerWithKey());
  });
  after(async () => gateway.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(gateway.url + path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('uses the Anthropic error shape on /v1/messages, with the request id', async () => {
    const response = await post('/v1/messages', '{}');
    expect(response.status).to.equal(401);
    const body = (await response.json()) as any;
    expect(body).to.deep.equal({
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid API key.' },
      request_id: response.headers.get('request-id'),
    });
  });

  it('accepts x-api-key on /v1/messages and names the missing field on a bad body', async () => {
    const response = await post('/v1/messages?beta=true', JSON.stringify({ model: 'sandbox/claude-sonnet', messages: [] }), { 'x-api-key': key });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as any;
    expect(body.type).to.equal('error');
    expect(body.error.type).to.equal('invalid_request_error');
    expect(body.error.message).to.include('max_tokens');
  });

  it('answers an oversized body with 413 and malformed JSON with 400', async () => {
    const big = JSON.stringify({ model: 'x', max_tokens: 1, messages: [{ role: 'user', content: 'a'.repeat(5000) }] });
    const tooLarge = await post('/v1/messages', big, { 'x-api-key': key });
    expect(tooLarge.status).to.equal(413);
    expect(((await tooLarge.json()) as any).error.type).to.equal('request_too_large');
    const adminTooLarge = await fetch(`${gateway.url}/admin/v1/customers`, {
      method: 'POST',
      body: JSON.stringify({ name: 'a'.repeat(5000) }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.adminToken}` },
    });
    expect(adminTooLarge.status).to.equal(413);
    expect(((await adminTooLarge.json()) as any).error.code).to.equal('request_too_large');

    const broken = await post('/v1/messages', '{"model":', { 'x-api-key': key });
    expect(broken.status).to.equal(400);
    expect(((await broken.json()) as any).error.type).to.equal('invalid_request_error');
  });

  it('tolerates unknown query parameters and 404s unknown routes in the error shape', async () => {
    const models = await fetch(`${gateway.url}/v1/models?beta=true&foo=bar`);
    expect(models.status).to.equal(200);
    const missing = await fetch(`${gateway.url}/v2/nothing`);
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as any).error.type).to.equal('not_found_error');
  });

  it('serves health and readiness without a key', async () => {
    const health = await fetch(`${gateway.url}/healthz`);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', catalogue: 'ok', accepting: 'ok' } });
  });
});
