import { expect } from 'chai';
import { Failure } from '../../../../src/domain/failure.ts';
import type { AnyHandler } from '../../../../src/http/handler.ts';
import { HttpError } from '../../../../src/http/errors.ts';
import { authenticate } from '../../../../src/http/steps/authenticate.ts';
import { dispatch } from '../../../../src/http/steps/dispatch.ts';
import { readRequestBody } from '../../../../src/http/steps/read-body.ts';
import { route } from '../../../../src/http/steps/route.ts';
import { validateRequest } from '../../../../src/http/steps/validate.ts';
import type { Services } from '../../../../src/services.ts';
import { call, customers, logger, startSteps } from './harness.ts';

describe('step: dispatch to the handler by operationId', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  const handlers: Record<string, AnyHandler> = {
    models_list: async (ctx) => ({ status: 200, body: { object: 'list', data: [], seen: ctx.operationId } }),
    models_pricing: async () => new Failure(HttpError.InvalidRequest, 'refused by the handler', { param: 'x' }),
    health_get: async (ctx) => {
      ctx.sink.start(200, { 'content-type': 'text/plain' });
      ctx.sink.end('streamed');
      return { streamed: true };
    },
    wallet_get: async () => {
      throw new Error('a bug');
    },
  };
  before(async () => {
    const steps = [route(undefined), authenticate({ adminToken: 'adm', customers }), readRequestBody(1024), validateRequest()];
    server = await startSteps([...steps, dispatch({ logger, services: {} as Services, validateResponses: false })], handlers);
  });
  after(() => server.close());

  it('writes a JSON reply in one piece with its length', async () => {
    const answer = await call(server.url, 'GET', '/v1/models');
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ object: 'list', data: [], seen: 'models_list' });
    expect(answer.headers['content-length']).to.equal(String(JSON.stringify(answer.body).length));
  });

  it('answers a failure value in the endpoint shape, leaves a streamed reply alone', async () => {
    const failed = await call(server.url, 'GET', '/v1/models/pricing');
    expect(failed.status).to.equal(400);
    expect(failed.body.error).to.include({ message: 'refused by the handler', param: 'x' });
    const response = await fetch(`${server.url}/healthz`);
    expect(await response.text()).to.equal('streamed');
  });

  it('turns a thrown error into a 500 without its text, and an operation without a handler into a 501', async () => {
    const thrown = await call(server.url, 'GET', '/v1/wallet', { authorization: 'Bearer sk-gw-good' });
    expect(thrown.status).to.equal(500);
    expect(JSON.stringify(thrown.body)).to.not.include('a bug');
    expect((await call(server.url, 'GET', '/v1/key', { authorization: 'Bearer sk-gw-good' })).status).to.equal(501);
  });
});
