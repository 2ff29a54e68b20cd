import { expect } from 'chai';
import { authenticate } from '../../../../src/http/steps/authenticate.ts';
import { readRequestBody } from '../../../../src/http/steps/read-body.ts';
import { route } from '../../../../src/http/steps/route.ts';
import { call, customers, startSteps } from './harness.ts';

describe('step: read body (bounded, after authentication)', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  let reads = 0;
  before(async () => {
    const counted = readRequestBody(64);
    server = await startSteps([
      route(undefined),
      authenticate({ adminToken: 'adm_secret_token', customers }),
      (req, res, next) => {
        reads++;
        return counted(req, res, next);
      },
    ]);
  });
  after(() => server.close());
  const key = { 'x-api-key': 'sk-gw-good', 'content-type': 'application/json' };

  it('parses a JSON body once the caller is known', async () => {
    const answer = await call(server.url, 'POST', '/v1/messages', key, '{"model":"m"}');
    expect(answer.body).to.deep.include({ body: { model: 'm' }, form: 'json' });
  });

  it('reads nothing for a caller refused by authentication', async () => {
    const before = reads;
    expect((await call(server.url, 'POST', '/v1/messages', { 'content-type': 'application/json' }, '{"model":"m"}')).status).to.equal(401);
    expect(reads).to.equal(before);
  });

  it('answers 413 past the limit, 400 for bad JSON, 415 for a type the operation does not take', async () => {
    expect((await call(server.url, 'POST', '/v1/messages', key, JSON.stringify({ model: 'x'.repeat(100) }))).status).to.equal(413);
    const bad = await call(server.url, 'POST', '/v1/messages', key, '{"model":');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.message).to.match(/not valid JSON/);
    expect((await call(server.url, 'POST', '/v1/messages', { ...key, 'content-type': 'multipart/form-data; boundary=x' }, '--x--')).status).to.equal(415);
  });
});
