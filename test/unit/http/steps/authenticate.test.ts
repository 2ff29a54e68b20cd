import { expect } from 'chai';
import { authenticate } from '../../../../src/http/steps/authenticate.ts';
import { route } from '../../../../src/http/steps/route.ts';
import { CALLER, call, customers, startSteps } from './harness.ts';

describe('step: authenticate', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(async () => (server = await startSteps([route(undefined), authenticate({ adminToken: 'adm_secret_token', customers })])));
  after(() => server.close());

  it('knows the caller by either credential the operation accepts', async () => {
    expect((await call(server.url, 'GET', '/v1/wallet', { authorization: 'Bearer sk-gw-good' })).body.caller).to.deep.equal(CALLER);
    expect((await call(server.url, 'POST', '/v1/messages/count_tokens', { 'x-api-key': 'sk-gw-good' })).body.caller).to.deep.equal(CALLER);
  });

  it('refuses a missing or unknown key with a 401 in the endpoint shape; anonymous operations pass', async () => {
    const none = await call(server.url, 'POST', '/v1/messages');
    expect(none.status).to.equal(401);
    expect(none.body).to.deep.include({ type: 'error' });
    expect((await call(server.url, 'GET', '/v1/wallet', { authorization: 'Bearer sk-gw-bad' })).status).to.equal(401);
    expect((await call(server.url, 'GET', '/v1/models')).body.caller).to.equal(null);
  });

  it('takes the admin token, and only it, on the operators surface', async () => {
    expect((await call(server.url, 'GET', '/admin/v1/customers', { authorization: 'Bearer adm_secret_token' })).status).to.equal(200);
    const customerKey = await call(server.url, 'GET', '/admin/v1/customers', { authorization: 'Bearer sk-gw-good' });
    expect(customerKey.status).to.equal(401);
    expect(customerKey.body.error.code).to.equal('invalid_admin_token');
  });
});
