import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';

export type { Operation };

/** What the dispatcher hands openapi-backend: a plain request, its body already read (body.ts). */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  body?: unknown;
}

export interface SpecApi {
  match(request: RawRequest): Operation | undefined;
  /** Null when valid, else a message naming the first offending field. */
  validateRequest(request: RawRequest, operation: Operation): { message: string; param: string | null } | null;
  parseParams(request: RawRequest, operation: Operation): Record<string, string>;
  validateResponse(body: unknown, operation: Operation, status: number): string | null;
  /** Query parameters the operation declares; everything else is dropped before validation. */
  declaredQuery(operation: Operation): ReadonlySet<string>;
}

/**
 * Loads a bundled OpenAPI 3.1 document into openapi-backend with Ajv 2020 (its built-in Ajv is
 * draft-07, which rejects 3.1 constructs such as `type: [string, "null"]`).
 */
export async function loadSpecApi(bundlePath: string): Promise<SpecApi> {
  const definition = JSON.parse(fs.readFileSync(bundlePath, 'utf8')) as Document;
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    validate: true,
    // Validators are compiled on first use: precompiling every request and response validator of
    // both documents left ~70 MB of garbage and a heap V8 kept (response validators only run when
    // VALIDATE_RESPONSES is on). The document is dereferenced synchronously in this mode.
    quick: true,
    ignoreTrailingSlashes: true,
    customizeAjv: (_original: unknown, ajvOpts: object) => {
      const ajv = new Ajv2020.default({ ...ajvOpts, strict: false, allErrors: false, validateFormats: true });
      addFormats.default(ajv);
      return ajv as never;
    },
  });
  // openapi-backend checks documents against the OpenAPI 3.0 metaschema, which rejects valid 3.1;
  // the contract is linted as 3.1 by Redocly instead (npm run spec:lint).
  Object.assign(api, { validateDefinition: () => undefined });
  await api.init();
  const declaredQueryCache = new Map<string, Set<string>>();
  // Routes without path parameters match by method and path alone: remember them (the router
  // tries every operation's pattern in turn). Paths with parameters are not kept: unbounded.
  const staticMatches = new Map<string, Operation | undefined>();
  const hasParams = (operation: Operation) => (operation.parameters ?? []).some((p) => 'in' in p && p.in === 'path');

  return {
    match(request) {
      const key = `${request.method} ${request.path}`;
      if (staticMatches.has(key)) return staticMatches.get(key);
      const operation = api.router.matchOperation(request as never) as Operation | undefined;
      if (operation && !hasParams(operation) && staticMatches.size < 1000) staticMatches.set(key, operation);
      return operation;
    },
    validateRequest(request, operation) {
      const result = api.validator.validateRequest(request as never, operation);
      if (result.valid) return null;
      return describeValidationError(result.errors?.[0]);
    },
    parseParams: (request, operation) => (hasParams(operation) ? (api.router.parseRequest(request as never, operation).params as Record<string, string>) : {}),
    validateResponse(body, operation, status) {
      const result = api.validator.validateResponse(body, operation, status);
      if (result.valid) return null;
      return (result.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    },
    declaredQuery(operation) {
      const id = operation.operationId ?? '';
      let names = declaredQueryCache.get(id);
      if (!names) {
        names = new Set((operation.parameters ?? []).filter((p): p is { in: string; name: string } => 'in' in p && p.in === 'query').map((p) => p.name));
        declaredQueryCache.set(id, names);
      }
      return names;
    },
  };
}

/** Turns an Ajv error into a sentence a client developer can act on. */
function describeValidationError(error: ErrorObject | undefined): { message: string; param: string | null } {
  if (!error) return { message: 'The request is invalid.', param: null };
  // instancePath looks like /requestBody/messages/0/role or /query/limit or /header/anthropic-version.
  const segments = error.instancePath.split('/').filter(Boolean);
  const [location, ...rest] = segments;
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  const pathSegments = missing ? [...rest, missing] : rest;
  const param = pathSegments.length ? pathSegments.join('.') : null;
  const where = location === 'requestBody' ? 'body' : (location ?? 'request');
  if (error.keyword === 'parse') return { message: `The body is not valid JSON: ${error.message}`, param: null };
  if (missing) return { message: `Missing required field \`${param}\` in the ${where}.`, param };
  if (location === 'requestBody' && !param && error.keyword === 'required') {
    return { message: 'A request body is required.', param: null };
  }
  return { message: `Invalid ${where} field \`${param ?? '(root)'}\`: ${error.message ?? 'invalid value'}.`, param };
}
