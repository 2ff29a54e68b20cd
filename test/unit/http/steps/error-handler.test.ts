import { expect } from 'chai';
import { QueryTimeoutError } from '../../../../src/db/unavailable.ts';
import { Failure } from '../../../../src/domain/failure.ts';
import { HttpError } from '../../../../src/http/errors.ts';
import { call, startSteps } from './harness.ts';

describe('step: error handler', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(
    async () =>
      (server = await startSteps([
        (req, _res, next) => {
          if (req.url === '/v1/messages') return next(new Failure(HttpError.RequestTooLarge, 'too big'));
          if (req.url === '/v1/models') return next(new Failure(HttpError.MethodNotAllowed, 'no', { headers: { allow: 'GET' } }));
          if (req.url === '/v1/db') return next(new QueryTimeoutError(10));
          throw new Error('secret detail');
        },
      ])),
  );
  after(() => server.close());

  it('answers a Failure in the endpoint shape with its status and headers', async () => {
    const anthropic = await call(server.url, 'GET', '/v1/messages');
    expect(anthropic.status).to.equal(413);
    expect(anthropic.body).to.deep.include({ type: 'error', request_id: anthropic.headers['request-id'] });
    const openai = await call(server.url, 'GET', '/v1/models');
    expect(openai.headers.allow).to.equal('GET');
    expect(openai.body.error.code).to.equal('method_not_allowed');
  });

  it('answers the database being unavailable with 503 and retry-after, anything else with a bare 500', async () => {
    const db = await call(server.url, 'GET', '/v1/db');
    expect(db.status).to.equal(503);
    expect(db.headers['retry-after']).to.equal('1');
    const bug = await call(server.url, 'GET', '/v1/other');
    expect(bug.status).to.equal(500);
    expect(JSON.stringify(bug.body)).to.not.include('secret detail');
  });
});
