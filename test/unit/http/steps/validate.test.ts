import { expect } from 'chai';
import { authenticate } from '../../../../src/http/steps/authenticate.ts';
import { readRequestBody } from '../../../../src/http/steps/read-body.ts';
import { route } from '../../../../src/http/steps/route.ts';
import { validateRequest } from '../../../../src/http/steps/validate.ts';
import { call, customers, startSteps } from './harness.ts';

describe('step: validate (openapi-backend validator)', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(
    async () => (server = await startSteps([route(undefined), authenticate({ adminToken: 'adm', customers }), readRequestBody(1 << 20), validateRequest()])),
  );
  after(() => server.close());
  const key = { authorization: 'Bearer sk-gw-good', 'content-type': 'application/json' };

  it('keeps the declared query parameters, coerced, and drops the rest (?beta=true)', async () => {
    const answer = await call(server.url, 'GET', '/v1/videos?limit=5&beta=true', key);
    expect(answer.body.query).to.deep.equal({ limit: 5 });
    expect((await call(server.url, 'POST', '/v1/messages?beta=true', key, '{"model":"m"}')).status).to.equal(200);
  });

  it('refuses a bad query parameter or body with a 400 naming the field', async () => {
    const query = await call(server.url, 'GET', '/v1/videos?limit=many', key);
    expect(query.status).to.equal(400);
    expect(query.body.error).to.include({ param: 'limit', code: 'invalid_request' });
    const body = await call(server.url, 'POST', '/v1/videos', key, '{"prompt":"a cat"}');
    expect(body.status).to.equal(400);
    expect(body.body.error).to.include({ message: 'Missing required field `model`.', param: 'model' });
  });

  it('validates a passthrough body as a JSON object only, no stricter', async () => {
    expect((await call(server.url, 'POST', '/v1/messages', key, '{"model":"m","max_tokens":"lots","future_field":{}}')).status).to.equal(200);
    const array = await call(server.url, 'POST', '/v1/messages', key, '[1]');
    expect(array.status).to.equal(400);
    expect(array.body.error.message).to.equal('The body must be a JSON object.');
  });

  it('answers a path parameter outside its pattern, or unstorable text, as naming nothing (404)', async () => {
    expect((await call(server.url, 'GET', '/v1/videos/not-a-task', key)).status).to.equal(404);
    expect((await call(server.url, 'GET', '/v1/videos/vt_%00', key)).status).to.equal(404);
    expect((await call(server.url, 'GET', '/v1/requests?model=%00', key)).status).to.equal(400);
  });
});
