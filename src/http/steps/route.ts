// Step 4: the operation, by openapi-backend's router (src/http/spec.ts). Three named exits: no
// operation at the path (404), a path served for other methods (405 with `Allow`, or the 204 of
// a CORS preflight), a path that cannot name anything (bad percent-encoding: 404).
import type { RequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import { CORS_PREFLIGHT, type Cors } from '../cors.ts';
import { HttpError } from '../errors.ts';
import { sendJson } from '../exchange.ts';
import { stateOf } from './state.ts';

export const notFound = (method: string | undefined, path: string): Failure =>
  new Failure(HttpError.RouteNotFound, `No route for ${method} ${path.slice(0, 200)}.`);

export const methodNotAllowed = (method: string | undefined, allowed: string[]): Failure =>
  new Failure(HttpError.MethodNotAllowed, `${method} is not served at this path; it takes ${allowed.join(', ')}.`, {
    headers: { allow: allowed.join(', ') },
  });

export function route(cors: Cors | undefined): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const matched = state.surface.spec.match(req.method, state.path);
    if (!matched) return next(notFound(req.method, state.path));
    // A path that cannot name a resource is a 404 like any other unknown id.
    if ('malformed' in matched) return next(new Failure(HttpError.RouteNotFound, 'The path has malformed percent-encoding, so it names nothing.'));
    if ('allowed' in matched) {
      const preflight = state.surface.admin ? undefined : cors?.preflight(req.method, matched.allowed, req.headers);
      if (!preflight) return next(methodNotAllowed(req.method, matched.allowed));
      state.exchange.operationId = CORS_PREFLIGHT;
      sendJson(res, 204, undefined, preflight, state.exchange);
      return state.handled();
    }
    state.operation = matched.operation;
    state.params = matched.params;
    state.exchange.operationId = matched.operation.operationId;
    if (matched.params.model_id) state.exchange.model = matched.params.model_id;
    next();
  };
}
