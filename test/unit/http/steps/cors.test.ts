import { expect } from 'chai';
import { createCors } from '../../../../src/http/cors.ts';
import { corsHeaders } from '../../../../src/http/steps/cors.ts';
import { route } from '../../../../src/http/steps/route.ts';
import { call, startSteps } from './harness.ts';

describe('step: CORS', () => {
  const cors = createCors(new Set(['https://app.example']));
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(async () => (server = await startSteps([corsHeaders(cors), route(cors)])));
  after(() => server.close());

  it('lets an allowed origin read answers of the public surface, errors included', async () => {
    const ok = await call(server.url, 'GET', '/v1/models', { origin: 'https://app.example' });
    expect(ok.headers['access-control-allow-origin']).to.equal('https://app.example');
    const missing = await call(server.url, 'GET', '/v2/nothing', { origin: 'https://app.example' });
    expect(missing.status).to.equal(404);
    expect(missing.headers['access-control-allow-origin']).to.equal('https://app.example');
  });

  it('says nothing to other origins, nor on the operators surface', async () => {
    expect((await call(server.url, 'GET', '/v1/models', { origin: 'https://evil.example' })).headers).to.not.have.property('access-control-allow-origin');
    expect((await call(server.url, 'GET', '/metrics', { origin: 'https://app.example' })).headers).to.not.have.property('access-control-allow-origin');
  });

  it('answers a preflight for a method the path serves with 204; otherwise OPTIONS is a 405', async () => {
    const preflight = await call(server.url, 'OPTIONS', '/v1/messages', { origin: 'https://app.example', 'access-control-request-method': 'POST' });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers['access-control-allow-methods']).to.equal('POST');
    const plain = await call(server.url, 'OPTIONS', '/v1/messages', { origin: 'https://app.example' });
    expect(plain.status).to.equal(405);
    expect(plain.headers.allow).to.equal('POST');
  });
});
