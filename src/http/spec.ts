// The contract at run time, through openapi-backend: its OpenAPIRouter matches operations and its
// OpenAPIValidator validates requests (Ajv 2020, every request validator compiled once at start)
// and, when VALIDATE_RESPONSES is on, responses. What the gateway adds around them is listed in
// docs/request-flow.md: a memo of static-path matches, HEAD as GET, the methods a path serves for a
// 405's Allow, only declared query parameters, and passthrough bodies checked as objects only;
// openapi-quick.ts takes the commonest requests through openapi-backend's own validators quickly.
import fs from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { FixedRouter, QuickValidator } from './openapi-quick.ts';
import { newAjv } from './ajv.ts';
import { firstProblem, type FieldProblem } from './spec-problems.ts';

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
}

export type { FieldProblem, RequestPart } from './spec-problems.ts';

/** The request as the validator sees it: the raw path, declared query parameters, the parsed body. */
export interface RequestToValidate {
  method: string;
  rawPath: string;
  headers: Record<string, string | string[] | undefined>;
  /** Declared query parameters only, as sent. */
  query: Record<string, string>;
  body: unknown;
  form: 'json' | 'multipart' | 'none';
}

export type Match = { operation: SpecOperation; params: Record<string, string> } | { malformed: true } | { allowed: string[] } | undefined;

export interface Spec {
  /** The operation for a method and raw (still percent-encoded) path, with its decoded path params. */
  match(method: string, rawPath: string): Match;
  operations: readonly SpecOperation[];
  /** The query coerced to its schema types when valid; else the first problem (path, query, header, body), naming the field. */
  validateRequest(operation: SpecOperation, request: RequestToValidate): { query: Record<string, unknown> } | { problem: FieldProblem };
  /** Null when a response body matches the contract (used when VALIDATE_RESPONSES is on). */
  validateResponse(operationId: string, status: number, body: unknown): string | null;
}

/** A memo of static-path matches is bounded: a path with no parameters is one the contract names. */
const MAX_MEMO = 1000;
const OBJECT_ONLY = { type: 'object' };

/**
 * Compiled contracts by bundle file and its state on disk. A Spec holds nothing of one gateway's
 * (only a memo of static-path matches), so a process that starts several gateways (the test
 * suite's files in one worker, an in-process replica) compiles each bundle once: compiling every
 * request validator costs about half a second of CPU. A bundle rewritten on disk compiles again.
 */
const compiled = new Map<string, { stamp: string; spec: Promise<Spec> }>();

export async function loadSpec(bundlePath: string): Promise<Spec> {
  const { mtimeMs, size } = fs.statSync(bundlePath);
  const stamp = `${mtimeMs}:${size}`;
  const known = compiled.get(bundlePath);
  if (known?.stamp === stamp) return known.spec;
  const spec = compileSpec(bundlePath);
  compiled.set(bundlePath, { stamp, spec });
  spec.catch(() => compiled.get(bundlePath)?.spec === spec && compiled.delete(bundlePath));
  return spec;
}

async function compileSpec(bundlePath: string): Promise<Spec> {
  const input = JSON.parse(fs.readFileSync(bundlePath, 'utf8')) as Document;
  // OpenAPIBackend only loads and dereferences the document here (quick: synchronously).
  const backend = new OpenAPIBackend({ definition: input, strict: true, validate: false, quick: true });
  // openapi-backend checks documents against the OpenAPI 3.0 metaschema, which rejects valid 3.1;
  // Redocly lints the 3.1 source instead (npm run spec:lint).
  Object.assign(backend, { validateDefinition: () => undefined });
  await backend.init();
  const definition = passthroughBodiesAsObjects(backend.definition);
  const router = new FixedRouter({ definition, ignoreTrailingSlashes: true });
  // One Ajv per validation context, not one per operation (openapi-backend's default).
  const ajvs = new Map<string, unknown>();
  const validator = new QuickValidator({
    definition,
    router,
    coerceTypes: true, // query, path and header values are strings
    lazyCompileValidators: true, // response validators compile on first use (only tests turn them on)
    customizeAjv: (_draft07: unknown, options: object, context?: string) => {
      const key = `${context}:${String((options as { coerceTypes?: unknown }).coerceTypes)}`;
      if (!ajvs.has(key)) ajvs.set(key, newAjv(options as Record<string, unknown>));
      return ajvs.get(key) as never;
    },
  });
  validator.preCompileRequestValidators(); // every request validator, once, at start

  const raw = router.getOperations();
  const operations = raw.map(describeOperation);
  const byId = new Map(raw.map((op, i) => [op.operationId!, { raw: op, operation: operations[i]! }]));
  // Multipart form fields arrive as strings: coerced to the body schema's types before validation.
  const coercing = newAjv({ coerceTypes: 'array' });
  const formCoercers = new Map<string, ValidateFunction>();
  for (const op of raw) {
    const schema = (op.requestBody as { content?: Record<string, { schema?: object }> } | undefined)?.content?.['multipart/form-data']?.schema;
    if (schema) formCoercers.set(op.operationId!, coercing.compile(schema));
  }

  const allowedAt = createAllowed(operations);
  const memo = new Map<string, SpecOperation>();
  const matchOne = (method: string, path: string): Operation | '404' | '405' => {
    try {
      return router.matchOperation({ method, path, headers: {} }, true);
    } catch (error) {
      return String((error as Error).message).startsWith('405') ? '405' : '404';
    }
  };

  return {
    operations,
    match(method, rawPath) {
      const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
      const key = `${method} ${path}`;
      const known = memo.get(key);
      if (known) return { operation: known, params: {} };
      let found = matchOne(method, path);
      if (found === '405' && method === 'HEAD') {
        const get = matchOne('GET', path);
        if (typeof get === 'object' && byId.get(get.operationId!)!.operation.headable) found = get;
      }
      if (found === '404') return undefined;
      if (found === '405') return { allowed: allowedAt(path) };
      const operation = byId.get(found.operationId!)!.operation;
      if (!operation.path.includes('{')) {
        if (memo.size < MAX_MEMO) memo.set(key, operation);
        return { operation, params: {} };
      }
      try {
        return { operation, params: router.parseRequest({ method, path, headers: {} }, found).params as Record<string, string> };
      } catch {
        return { malformed: true }; // bad percent-encoding: the path names nothing
      }
    },
    validateRequest(operation, request) {
      if (request.form === 'multipart') formCoercers.get(operation.operationId)?.(request.body);
      const result = validator.validateRequest(
        {
          method: request.method,
          path: request.rawPath,
          headers: request.headers as Record<string, string | string[]>,
          query: request.query,
          body: request.body,
        },
        byId.get(operation.operationId)!.raw,
      );
      if (result.valid) return { query: (result.coerced?.query ?? request.query) as Record<string, unknown> };
      return { problem: firstProblem(result.errors ?? []) };
    },
    validateResponse(operationId, status, body) {
      const result = validator.validateResponse(body, operationId, status);
      if (result.valid) return null;
      return (result.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    },
  };
}

/** A passthrough operation's body is forwarded as sent: validated as a JSON object only. */
function passthroughBodiesAsObjects(definition: Document): Document {
  for (const item of Object.values(definition.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<Record<string, unknown>>) {
      if (typeof op !== 'object' || op?.['x-passthrough'] !== true || !op.requestBody) continue;
      const body = op.requestBody as { required?: boolean; content: Record<string, object> };
      op.requestBody = { ...body, content: Object.fromEntries(Object.keys(body.content).map((type) => [type, { schema: OBJECT_ONLY }])) };
    }
  }
  return definition;
}

function describeOperation(op: Operation): SpecOperation {
  const parameters = (op.parameters ?? []) as Array<{ in: string; name: string }>;
  const content = (op.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  const requirements = (op.security ?? []) as Array<Record<string, unknown>>;
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
    declaredQuery: new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name)),
    headable: op.method === 'get' && answered.length > 0 && answered.every((type) => type === 'application/json' || type === 'text/plain'),
  };
}

/**
 * The methods a path is served for (a 405's `Allow`, as Prism's mock of the same document
 * answers): openapi-backend's router says that a path has other methods, not which.
 */
function createAllowed(operations: SpecOperation[]): (path: string) => string[] {
  const routes = operations.map((op) => ({
    pattern: new RegExp(
      `^${op.path
        .split(/\{[^}]+\}/)
        .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    ),
    methods: op.headable ? [op.method, 'HEAD'] : [op.method],
  }));
  return (path) => [...new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))].sort();
}
