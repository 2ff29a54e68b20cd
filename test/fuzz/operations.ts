// The fuzz suite's view of the contract: every operation of both bundled documents with the
// schemas of its path, query and header parameters and of its request bodies, read from
// generated/*.json (what the gateway itself loads), so a new operation is fuzzed the day it ships.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';

export type Schema = Record<string, unknown>;

export interface FuzzParameter {
  name: string;
  required: boolean;
  schema: Schema;
}

export interface FuzzOperation {
  document: 'public' | 'admin';
  operationId: string;
  method: string;
  /** The path template, e.g. /admin/v1/customers/{customer_id}. */
  template: string;
  path: FuzzParameter[];
  query: FuzzParameter[];
  headers: FuzzParameter[];
  /** Request body schemas by media type (application/json, multipart/form-data). */
  bodies: Partial<Record<'application/json' | 'multipart/form-data', Schema>>;
  bodyRequired: boolean;
  /** Security scheme names the operation accepts; empty when anonymous callers are let through. */
  schemes: string[];
  anonymous: boolean;
  /** Response statuses the contract declares (and `default` when it has one). */
  statuses: Set<string>;
  /** Methods the path serves through this operation: its own, and HEAD for a GET answering JSON or text. */
  serves: string[];
  /** The document, for resolving `$ref`s inside the schemas above. */
  root: Schema;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A response whose every content type is JSON or plain text (HEAD serves those as GET without the body). */
function answersTextOnly(response: Schema): boolean {
  const types = Object.keys((response.content ?? {}) as object);
  return types.length > 0 && types.every((type) => type === 'application/json' || type === 'text/plain');
}

/** Follows `#/components/...` pointers until the schema is not a reference. */
export function deref(root: Schema, schema: unknown): Schema {
  let current = schema as Schema;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 32; hops++) {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<unknown>((node, key) => (node as Schema)[key.replace(/~1/g, '/').replace(/~0/g, '~')], root) as Schema;
  }
  return current ?? {};
}

function loadDocument(document: 'public' | 'admin'): FuzzOperation[] {
  const file = path.join(ROOT_DIR, 'generated', document === 'public' ? 'openapi.json' : 'admin.json');
  const root = JSON.parse(fs.readFileSync(file, 'utf8')) as Schema;
  const rootSecurity = (root.security ?? []) as Array<Record<string, unknown>>;
  const operations: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(root.paths as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const raw = item[method] as Schema | undefined;
      if (!raw) continue;
      const op = deref(root, raw);
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((p) => deref(root, p));
      const of = (place: string): FuzzParameter[] =>
        parameters.filter((p) => p.in === place).map((p) => ({ name: String(p.name), required: p.required === true, schema: deref(root, p.schema ?? {}) }));
      const requestBody = op.requestBody ? deref(root, op.requestBody) : undefined;
      const content = (requestBody?.content ?? {}) as Record<string, { schema?: unknown }>;
      const bodies: FuzzOperation['bodies'] = {};
      for (const type of ['application/json', 'multipart/form-data'] as const) if (content[type]?.schema) bodies[type] = deref(root, content[type].schema);
      const security = (op.security ?? rootSecurity) as Array<Record<string, unknown>>;
      operations.push({
        document,
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        template,
        path: of('path'),
        query: of('query'),
        headers: of('header'),
        bodies,
        bodyRequired: requestBody?.required === true,
        schemes: [...new Set(security.flatMap((r) => Object.keys(r)))],
        anonymous: security.length === 0 || security.some((r) => Object.keys(r).length === 0),
        statuses: new Set(Object.keys((op.responses ?? {}) as object)),
        serves:
          method === 'get' && answersTextOnly(deref(root, (op.responses as Record<string, unknown> | undefined)?.['200'] ?? {}))
            ? ['GET', 'HEAD']
            : [method.toUpperCase()],
        root,
      });
    }
  }
  return operations;
}

export function loadOperations(): FuzzOperation[] {
  return [...loadDocument('public'), ...loadDocument('admin')];
}

/** The error shape a path's 4xx and 5xx answers take (the design brief's wire decision). */
export const errorShapeOf = (rawPath: string): 'anthropic' | 'openai' | 'google' => {
  const pathOnly = rawPath.split('?')[0]!;
  return pathOnly === '/v1/messages' || pathOnly.startsWith('/v1/messages/') ? 'anthropic' : pathOnly.startsWith('/v1beta/') ? 'google' : 'openai';
};
