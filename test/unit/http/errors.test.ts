import { expect } from 'chai';
import { CustomerError } from '../../../src/customers/errors.ts';
import { Failure } from '../../../src/domain/failure.ts';
import { PassthroughError, passthroughFailures } from '../../../src/domain/passthrough/errors.ts';
import { VideoError, videoFailures } from '../../../src/domain/videos/errors.ts';
import { HttpError, failureOf, renderFailure, shapeOfPath, type ErrorBody } from '../../../src/http/errors.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';

describe('failures on the wire', () => {
  it('takes the Anthropic shape on /v1/messages*, the OpenAI shape elsewhere', () => {
    expect(shapeOfPath('/v1/messages')).to.equal('anthropic');
    expect(shapeOfPath('/v1/messages/count_tokens')).to.equal('anthropic');
    expect(shapeOfPath('/v1/messagesx')).to.equal('openai');
    expect(shapeOfPath('/v1/chat/completions')).to.equal('openai');
  });

  it("maps each code to its status, and the status to Anthropic's error type", () => {
    const cases: Array<[Failure, number, string]> = [
      [passthroughFailures.modelNotFound('x'), 404, 'not_found_error'],
      [passthroughFailures.insufficientBalance('x'), 402, 'billing_error'],
      [passthroughFailures.noProvider('x'), 503, 'api_error'],
      [new Failure(PassthroughError.UpstreamTimeout, ''), 504, 'timeout_error'],
      [new Failure(HttpError.RequestTooLarge, 'big'), 413, 'request_too_large'],
      [new Failure(HttpError.InvalidApiKey, ''), 401, 'authentication_error'],
    ];
    for (const [failure, status, type] of cases) {
      const reply = renderFailure(failure, 'anthropic', 'req_1');
      expect(reply.status, failure.code).to.equal(status);
      expect(reply.body).to.deep.equal({ type: 'error', error: { type, message: reply.body.error.message }, request_id: 'req_1' });
      expect(reply.body.error.message, failure.code).to.not.equal('');
    }
  });

  it("passes a provider's own status and type on, with its retry headers", () => {
    const failure = new Failure(PassthroughError.UpstreamError, 'Overloaded', {
      upstream: { status: 529, type: 'overloaded_error' },
      headers: { 'retry-after': '3' },
    });
    expect(renderFailure(failure, 'anthropic', 'r')).to.deep.equal({
      status: 529,
      headers: { 'retry-after': '3' },
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'r' },
    });
    expect(renderFailure(failure, 'openai', 'r').body).to.deep.equal({
      error: { message: 'Overloaded', type: 'overloaded_error', code: 'upstream_error', param: null },
    });
  });

  it('tells SDKs not to retry our 409s, and gives bare ledger and customer codes their message', () => {
    expect(renderFailure(videoFailures.notCancellable('completed'), 'openai', 'r').headers).to.deep.equal({ 'x-should-retry': 'false' });
    expect(renderFailure(videoFailures.keyInFlight(), 'openai', 'r').headers).to.include({ 'x-should-retry': 'true' }); // the one 409 worth retrying
    expect(renderFailure(failureOf(LedgerError.ReferenceConflict, 'reference'), 'openai', 'r').body).to.deep.equal({
      error: {
        message: 'This reference was already used for a different amount or customer.',
        type: 'invalid_request_error',
        code: 'reference_conflict',
        param: 'reference',
      },
    });
    expect(renderFailure(failureOf(CustomerError.CustomerNotFound), 'openai', 'r').status).to.equal(404);
    expect(renderFailure(new Failure(VideoError.IdempotencyKeyReused, 'x'), 'openai', 'r').status).to.equal(422);
  });

  it('renders an unmapped code as the generic 500, never as its internals', () => {
    const reply = renderFailure(new Failure('some_bug', ''), 'openai', 'r');
    expect(reply.status).to.equal(500);
    expect((reply.body as ErrorBody).error.type).to.equal('api_error');
  });
});
