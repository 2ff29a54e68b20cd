// Step 7: the request against its operation, by openapi-backend's validator (src/http/spec.ts):
// path parameters, the declared query parameters (others, like the Anthropic SDK's ?beta=true,
// are dropped, not refused), headers and the body. A path parameter that fails its schema names
// nothing (404); anything else is a 400 naming the field. Before the schema: no id, cursor or
// filter can hold NUL or a lone surrogate (no row has one, and the database refuses the text).
import type { RequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import { HttpError } from '../errors.ts';
import type { SpecOperation } from '../spec.ts';
import { stateOf } from './state.ts';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const invalidRequest = (message: string, param: string | null): Failure => new Failure(HttpError.InvalidRequest, message, { param });

export function validateRequest(): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const operation = state.operation!;
    for (const name in state.params) {
      if (UNSTORABLE.test(state.params[name]!))
        return next(new Failure(HttpError.RouteNotFound, `Nothing exists at this path. \`${name}\` cannot hold that text.`, { param: name }));
    }
    const query = declaredQuery(req.url ?? '', operation);
    for (const name in query) {
      if (UNSTORABLE.test(query[name]!)) return next(invalidRequest(`The parameter \`${name}\` contains a NUL character or an unpaired surrogate.`, name));
    }
    const body = state.body!;
    // Every JSON body the contracts take is an object; a bare string or number is refused here
    // (openapi-backend would try to parse it again as JSON text).
    if (body.form === 'json' && (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value))) {
      if (operation.passthrough) return next(invalidRequest('The body must be a JSON object.', null));
      if (typeof body.value !== 'object') return next(invalidRequest('Invalid body field `(root)`: must be object.', null));
    }
    const result = state.surface.spec.validateRequest(operation, {
      method: req.method,
      rawPath: state.path,
      headers: req.headers,
      query,
      body: body.value,
      form: body.form,
    });
    if ('query' in result) {
      state.query = result.query;
      return next();
    }
    const { problem } = result;
    if (problem.where === 'path')
      return next(new Failure(HttpError.RouteNotFound, `Nothing exists at this path. ${problem.message}`, { param: problem.param }));
    next(invalidRequest(problem.message, problem.param));
  };
}

/** The query parameters the operation declares, first value of each; the rest are dropped. */
export function declaredQuery(url: string, operation: SpecOperation): Record<string, string> {
  const query: Record<string, string> = {};
  const mark = url.indexOf('?');
  if (mark === -1 || operation.declaredQuery.size === 0) return query;
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) {
    if (operation.declaredQuery.has(name) && !(name in query)) query[name] = value;
  }
  return query;
}
