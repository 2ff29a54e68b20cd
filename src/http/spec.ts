// The contract at run time: every operation of a bundled OpenAPI 3.1 document with its route
// matcher and its validators, compiled once at start. openapi-backend loads and dereferences the
// document and checks responses (tests); requests never go through its generic per-call path.
import fs from 'node:fs';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { OpenAPIBackend, type Document } from 'openapi-backend';

export interface SpecOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. /v1/models/{model_id}. */
  path: string;
  /** Security scheme names the operation accepts, and whether anonymous callers pass too. */
  schemes: ReadonlySet<string>;
  anonymousAllowed: boolean;
  /** Media types the request body may have; empty when the operation takes no body. */
  bodyTypes: ReadonlySet<string>;
  bodyRequired: boolean;
  /**
   * Passthrough operations (`x-passthrough: true`): the body is forwarded to a provider, and the
   * gateway checks only the fields it uses itself (in the domain); the spec documents the rest.
   */
  passthrough: boolean;
  /** Query parameters the operation declares; the rest are dropped (the Anthropic SDK's ?beta=true). */
  declaredQuery: ReadonlySet<string>;
  /**
   * HEAD is served as this GET without its body (RFC 9110: uptime monitors probe /healthz so): a
   * GET whose answer is JSON or text. A download (`/v1/videos/{id}/content`) is not: its HEAD
   * would pull the whole file from the provider to drop it.
   */
  headable: boolean;
  /** Null when the part is valid, else the first problem, naming the field. */
  validate(part: RequestPart, value: unknown): FieldProblem | null;
}

export type RequestPart = 'path' | 'query' | 'header' | 'json' | 'multipart';
export interface FieldProblem {
  message: string;
  param: string | null;
}

export interface Spec {
  /** The operation for a method and raw (still percent-encoded) path, with its decoded path params. */
  match(
    method: string,
    rawPath: string,
  ): { operation: SpecOperation; params: Record<string, string> } | { malformed: true } | { allowed: string[] } | undefined;
  operations: readonly SpecOperation[];
  /** Null when a response body matches the contract (used when VALIDATE_RESPONSES is on). */
  validateResponse(operationId: string, status: number, body: unknown): string | null;
}

interface RawParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
}

const WHERE: Record<RequestPart, string> = { path: 'path', query: 'query', header: 'header', json: 'body', multipart: 'body' };

export async function loadSpec(bundlePath: string): Promise<Spec> {
  const definition = JSON.parse(fs.readFileSync(bundlePath, 'utf8')) as Document;
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    validate: true,
    quick: true, // response validators compile on first use (only tests turn them on)
    customizeAjv: (_original: unknown, options: object) => newAjv(options as Record<string, unknown>) as never,
  });
  // openapi-backend checks documents against the OpenAPI 3.0 metaschema, which rejects valid 3.1;
  // Redocly lints the 3.1 source instead (npm run spec:lint).
  Object.assign(api, { validateDefinition: () => undefined });
  await api.init();

  const ajv = newAjv({ coerceTypes: false });
  const coercing = newAjv({ coerceTypes: 'array' }); // query, path, headers and form fields are strings
  const rootSecurity = (definition.security ?? []) as Array<Record<string, unknown>>;
  const operations = api.getOperations().map((op): SpecOperation => {
    const parameters = (op.parameters ?? []) as RawParameter[];
    const byPlace = (place: string) => parameters.filter((p) => p.in === place);
    const objectOf = (list: RawParameter[], lowerCase = false) => ({
      type: 'object',
      properties: Object.fromEntries(list.map((p) => [lowerCase ? p.name.toLowerCase() : p.name, p.schema ?? {}])),
      required: list.filter((p) => p.required).map((p) => (lowerCase ? p.name.toLowerCase() : p.name)),
    });
    const content = ((op.requestBody as { content?: Record<string, { schema?: object }> } | undefined)?.content ?? {}) as Record<string, { schema?: object }>;
    const validators: Partial<Record<RequestPart, ValidateFunction>> = {
      path: coercing.compile(objectOf(byPlace('path'))),
      query: coercing.compile(objectOf(byPlace('query'))),
      header: coercing.compile(objectOf(byPlace('header'), true)),
      ...(content['application/json']?.schema ? { json: ajv.compile(content['application/json'].schema) } : {}),
      ...(content['multipart/form-data']?.schema ? { multipart: coercing.compile(content['multipart/form-data'].schema) } : {}),
    };
    const requirements = (op.security ?? rootSecurity) as Array<Record<string, unknown>>;
    const answered = Object.keys((op.responses as Record<string, { content?: object }> | undefined)?.['200']?.content ?? {});
    return {
      operationId: op.operationId!,
      method: op.method.toUpperCase(),
      path: op.path,
      schemes: new Set(requirements.flatMap((r) => Object.keys(r))),
      anonymousAllowed: requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0),
      bodyTypes: new Set(Object.keys(content)),
      bodyRequired: Boolean((op.requestBody as { required?: boolean } | undefined)?.required),
      passthrough: (op as { 'x-passthrough'?: boolean })['x-passthrough'] === true,
      declaredQuery: new Set(byPlace('query').map((p) => p.name)),
      headable: op.method === 'get' && answered.length > 0 && answered.every((type) => type === 'application/json' || type === 'text/plain'),
      validate(part, value) {
        const validator = validators[part];
        if (!validator || validator(value)) return null;
        return describe(validator.errors?.[0], WHERE[part]);
      },
    };
  });

  const router = createRouter(operations);
  return {
    operations,
    match: router,
    validateResponse(operationId, status, body) {
      const result = api.validator.validateResponse(body, operationId, status);
      if (result.valid) return null;
      return (result.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    },
  };
}

function newAjv(options: Record<string, unknown>) {
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: false, validateFormats: true, useDefaults: false });
  addFormats.default(ajv);
  // RFC 3339 admits a leap second (23:59:60), year 0000 and offsets that carry a date past 9999;
  // no timestamp column (nor a JS Date) holds those, so a `date-time` here is one that can be stored.
  const rfc3339 = fullFormats['date-time'] as { validate: (text: string) => boolean };
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => rfc3339.validate(text) && representable(text) });
  return ajv;
}

function representable(text: string): boolean {
  const date = new Date(text);
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

/**
 * Static paths match from a map; templates by a regex compiled once. Params are decoded here. A
 * path the spec has under other methods only answers with those (`allowed`, for a 405 and its
 * `Allow` header, as Prism's mock of the same document does).
 */
function createRouter(operations: SpecOperation[]): Spec['match'] {
  const exact = new Map<string, SpecOperation>();
  const methodsOf = new Map<string, string[]>();
  const templated: Array<{ method: string; pattern: RegExp; names: string[]; operation: SpecOperation }> = [];
  for (const operation of operations) {
    const names: string[] = [];
    const methods = operation.headable ? [operation.method, 'HEAD'] : [operation.method];
    if (!operation.path.includes('{')) {
      for (const method of methods) exact.set(`${method} ${operation.path}`, operation);
      methodsOf.set(operation.path, [...(methodsOf.get(operation.path) ?? []), ...methods]);
      continue;
    }
    const source = operation.path
      .split(/(\{[^}]+\})/)
      .map((piece) => (piece.startsWith('{') ? (names.push(piece.slice(1, -1)), '([^/]+)') : piece.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    const pattern = new RegExp(`^${source}$`);
    for (const method of methods) templated.push({ method, pattern, names, operation });
  }
  return (method, rawPath) => {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const found = exact.get(`${method} ${path}`);
    if (found) return { operation: found, params: {} };
    for (const route of templated) {
      if (route.method !== method) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      for (const [i, name] of route.names.entries()) {
        try {
          params[name] = decodeURIComponent(match[i + 1]!);
        } catch {
          return { malformed: true };
        }
      }
      return { operation: route.operation, params };
    }
    const allowed = [...(methodsOf.get(path) ?? []), ...templated.filter((route) => route.pattern.test(path)).map((route) => route.method)];
    return allowed.length > 0 ? { allowed: [...new Set(allowed)].sort() } : undefined;
  };
}

/** Turns an Ajv error into a sentence a client developer can act on, naming the field. */
function describe(error: ErrorObject | undefined, where: string): FieldProblem {
  if (!error) return { message: `The request ${where} is invalid.`, param: null };
  const segments = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  const path = missing ? [...segments, missing] : segments;
  const param = path.length ? path.join('.') : null;
  if (missing) return { message: `Missing required ${where === 'body' ? 'field' : `${where} parameter`} \`${param}\`.`, param };
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty;
    const field = [...segments, extra].filter(Boolean).join('.');
    return { message: `Unknown ${where} field \`${field}\`.`, param: field };
  }
  return { message: `Invalid ${where} field \`${param ?? '(root)'}\`: ${error.message ?? 'invalid value'}.`, param };
}
