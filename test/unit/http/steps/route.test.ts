import { expect } from 'chai';
import { route } from '../../../../src/http/steps/route.ts';
import { call, startSteps } from './harness.ts';

describe('step: route (openapi-backend router)', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(async () => (server = await startSteps([route(undefined)])));
  after(() => server.close());

  it('finds the operation and decodes path parameters', async () => {
    const answer = await call(server.url, 'GET', '/v1/models/sandbox%2Fclaude-sonnet');
    expect(answer.body).to.deep.include({ operationId: 'models_retrieve', params: { model_id: 'sandbox/claude-sonnet' } });
    expect((await call(server.url, 'GET', '/admin/v1/customers')).body.operationId).to.equal('admin_customers_list');
  });

  it('serves HEAD as GET where the answer is JSON or text, not for a download', async () => {
    expect((await call(server.url, 'HEAD', '/healthz')).status).to.equal(200);
    const download = await call(server.url, 'HEAD', '/v1/videos/vt_abc/content');
    expect(download.status).to.equal(405);
    expect(download.headers.allow).to.equal('GET');
  });

  it('has one exit for an unknown path (404), one for another method (405 with Allow), each in the endpoint shape', async () => {
    const missing = await call(server.url, 'GET', '/v2/nothing');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.include({ type: 'not_found_error', code: 'route_not_found' });
    const other = await call(server.url, 'DELETE', '/v1/messages');
    expect(other.status).to.equal(405);
    expect(other.headers.allow).to.equal('POST');
    expect(other.body).to.include({ type: 'error' }); // the Messages shape
  });

  it('answers a path with malformed percent-encoding as naming nothing', async () => {
    expect((await call(server.url, 'GET', '/v1/models/%ff')).status).to.equal(404);
  });
});
