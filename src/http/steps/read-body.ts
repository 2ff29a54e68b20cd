// Step 6: the body, only once the caller is known, by the bounded reader (src/http/body.ts): no
// body-parser, passthrough bytes kept as received for the provider, a body the operation does not
// take drained and dropped. 413, 415 and invalid JSON are its exits.
import type { RequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import { readBody } from '../body.ts';
import { stateOf } from './state.ts';

/** `idleMs`: a body with no byte for this long is answered 408 (HTTP_BODY_IDLE_TIMEOUT_MS). */
export function readRequestBody(limitBytes: number, idleMs = 30_000): RequestHandler {
  return async (req, res, next) => {
    const state = stateOf(res);
    const body = await readBody(req, state.operation!, limitBytes, idleMs);
    if (body instanceof Failure) return next(body);
    state.body = body;
    const model = (body.value as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string') state.exchange.model = model;
    next();
  };
}
