// openapi-backend's router and validator, with a quick path for the requests most traffic is: an
// operation at a path without parameters, no query, no cookie, a parsed body. Its request parsing
// (lodash over the headers, a deep clone of the query, a cookie parse, a path template compiled
// again for every request) and the lodash around its validators took nine tenths of a request's
// validation time (a CPU profile of spec.validateRequest in a loop); Ajv's own checks, compiled
// once at start, were the rest. The quick path runs the same compiled validators on the same
// parameters and gives the same result, key for key (test/unit/http/openapi-quick.test.ts
// compares both on every operation); any other request takes openapi-backend's own path.
import { OpenAPIRouter, OpenAPIValidator, type Operation, type ParsedRequest, type Request, type ValidationResult } from 'openapi-backend';

/** The request needs nothing of what openapi-backend's own parsing does beyond copying its headers. */
function isPlain(req: Request, operation: Operation): boolean {
  if (operation.path.includes('{')) return false;
  if (req.body !== undefined && typeof req.body !== 'object') return false;
  if (typeof req.query !== 'object' || req.query === null) return false;
  for (const name in req.query) if (Object.hasOwn(req.query, name)) return false;
  return true;
}

/**
 * The headers with lower-case names, as openapi-backend's `_.mapKeys` makes them (Node's names are
 * already); undefined when there is a cookie to parse or a `__proto__` (lodash defines that one
 * as a property): openapi-backend's own parsing then.
 */
function lowerCased(headers: Request['headers']): Record<string, string | string[]> | undefined {
  const copy: Record<string, string | string[]> = {};
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie' || name === '__proto__') return undefined;
    copy[lower] = headers[name]!;
  }
  return copy;
}

/**
 * openapi-backend's router flattens the document into operations on every call (a lodash chain
 * over all paths); the document never changes here, so the list is made once. A public method,
 * overridden in a subclass, which the validator (given this router) uses too.
 */
export class FixedRouter extends OpenAPIRouter {
  private operations: Operation[] | undefined;
  override getOperations(): Operation[] {
    return (this.operations ??= super.getOperations());
  }

  override parseRequest(req: Request, operation?: Operation): ParsedRequest {
    const headers = operation && isPlain(req, operation) ? lowerCased(req.headers) : undefined;
    if (!headers) return super.parseRequest(req, operation);
    let path = req.path?.trim() || '';
    if (!path.startsWith('/')) path = `/${path}`;
    path = path.split('?')[0]!;
    const method = req.method.trim().toLowerCase();
    return Object.assign({}, req, {
      path,
      method,
      params: {},
      headers,
      query: {},
      cookies: Object.create(null) as object,
      requestBody: req.body,
    }) as ParsedRequest;
  }
}

export class QuickValidator extends OpenAPIValidator {
  override validateRequest(req: Request, operation?: Operation | string): ValidationResult<Request> {
    if (typeof operation !== 'object' || !operation.operationId || !isPlain(req, operation)) return super.validateRequest(req, operation);
    const coerced: Record<string, unknown> = { ...req };
    const result: ValidationResult<Request> = { valid: true, coerced: coerced as unknown as Request, errors: [] };
    const validators = this.getRequestValidatorsForOperation(operation.operationId) || [];
    const { params, query, headers, cookies, requestBody } = this.router.parseRequest(req, operation);
    const parameters: Record<string, unknown> = { path: params, query, header: headers, cookie: cookies };
    const raw = headers['content-type'];
    const contentType = String((Array.isArray(raw) ? raw[0] : raw) || '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (typeof requestBody === 'object' || contentType === 'application/json') parameters.requestBody = requestBody;
    for (const validate of validators) {
      validate(parameters);
      if (validate.errors) result.errors!.push(...validate.errors);
      else if (this.coerceTypes) {
        coerced.query = parameters.query;
        coerced.params = parameters.path;
      }
    }
    if (result.errors!.length === 0) result.errors = null;
    else result.valid = false;
    return result;
  }
}
