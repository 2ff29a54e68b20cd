// Step 9 (Express's error middleware): every step's named exit arrives here as a Failure and is
// answered in the endpoint's error shape; anything else is a bug or the database: 503 with
// retry-after when the database is unavailable (the database layer's verdict, handed in:
// src/db/unavailable.ts), else 500, logged with the request id. Never a second answer: a response
// already begun is cut instead.
import type { ErrorRequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import type { Logger } from '../../logger.ts';
import { HttpError } from '../errors.ts';
import { sendFailure } from '../exchange.ts';
import { stateOf } from './state.ts';

export function errorHandler(logger: Logger, databaseUnavailable: (error: unknown) => boolean): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const state = stateOf(res);
    state.handled();
    if (error instanceof Failure) return sendFailure(res, error, state.shape, state.exchange);
    const unavailable = databaseUnavailable(error);
    logger.error(
      { request_id: state.exchange.requestId, operation: state.exchange.operationId, err: error },
      unavailable ? 'database unavailable' : 'unhandled error',
    );
    if (res.headersSent) return void res.destroy();
    const failure = unavailable ? new Failure(HttpError.DatabaseUnavailable, '', { headers: { 'retry-after': '1' } }) : new Failure(HttpError.Internal, '');
    sendFailure(res, failure, state.shape, state.exchange);
  };
}
