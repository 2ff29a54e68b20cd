import { expect } from 'chai';
import { Failure } from '../../../src/domain/failure.ts';
import { PassthroughError } from '../../../src/domain/passthrough/errors.ts';
import { HttpError, renderFailure, shapeOfPath } from '../../../src/http/errors.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';

describe("Google's error shape on /v1beta/*", () => {
  it('is the shape of the Gemini paths only', () => {
    expect(shapeOfPath('/v1beta/models/gemini-3.1-pro-preview:generateContent')).to.equal('google');
    expect(shapeOfPath('/v1/models')).to.equal('openai');
  });

  it('names the canonical status of the HTTP code', () => {
    expect(renderFailure(new Failure(HttpError.InvalidApiKey, ''), 'google', 'r')).to.deep.include({
      status: 401,
      body: { error: { code: 401, message: 'Invalid API key.', status: 'UNAUTHENTICATED' } },
    });
    expect(renderFailure(new Failure(PassthroughError.ModelNotFound, 'no such model'), 'google', 'r').body).to.deep.equal({
      error: { code: 404, message: 'no such model', status: 'NOT_FOUND' },
    });
  });

  it('says a balance too low as 403 PERMISSION_DENIED with an ErrorInfo, which Gemini CLI reports without retrying', () => {
    const reply = renderFailure(new Failure(PassthroughError.InsufficientBalance, 'Your balance is too low.'), 'google', 'r');
    expect(reply.status).to.equal(403);
    expect(reply.body).to.deep.equal({
      error: {
        code: 403,
        message: 'Your balance is too low.',
        status: 'PERMISSION_DENIED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'INSUFFICIENT_BALANCE',
            domain: 'gateway',
            metadata: { code: 'insufficient_balance' },
          },
        ],
      },
    });
  });

  it('gives a rate limit a RetryInfo of its retry-after', () => {
    const reply = renderFailure(new Failure(LedgerError.KeyRateLimited, 'slow down', { headers: { 'retry-after': '12' } }), 'google', 'r');
    expect(reply).to.deep.include({ status: 429, headers: { 'retry-after': '12' } });
    expect(reply.body).to.deep.equal({
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' }],
      },
    });
  });
});
