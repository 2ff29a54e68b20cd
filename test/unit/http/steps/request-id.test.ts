import { expect } from 'chai';
import { isAdminPath } from '../../../../src/http/steps/request-id.ts';
import { call, startSteps } from './harness.ts';

describe('step: request id', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(async () => (server = await startSteps([])));
  after(() => server.close());

  it('gives every answer a request-id and x-request-id, the same, minted here', async () => {
    const answer = await call(server.url, 'GET', '/v1/models', { 'x-request-id': 'from-the-client' });
    expect(answer.headers['request-id']).to.match(/^req_[A-Za-z0-9]{24}$/);
    expect(answer.headers['x-request-id']).to.equal(answer.headers['request-id']);
  });

  it('picks the surface and the error shape by path', async () => {
    expect((await call(server.url, 'GET', '/v1/messages/x')).body).to.include({ shape: 'anthropic', admin: false });
    expect((await call(server.url, 'GET', '/v1/models?x=1')).body).to.include({ shape: 'openai', admin: false });
    expect((await call(server.url, 'GET', '/metrics')).body).to.include({ admin: true });
    expect(isAdminPath('/admin/v1/customers')).to.equal(true);
    expect(isAdminPath('/administrator')).to.equal(false);
  });
});
