// Requests for one operation, from its own schemas: credentials (valid, none, wrong, malformed, the
// other surface's), path parameters (real ids, schema-valid, hostile segments), declared and
// unknown query parameters, declared headers, and a body (valid, mutated, hostile, multipart,
// wrongly typed, empty, too large, or with a Content-Length that lies).
import fc from 'fast-check';
import type { FuzzRequest } from './http-client.ts';
import { HOSTILE_BODIES, HOSTILE_HEADER_VALUES, HOSTILE_QUERY_VALUES, HOSTILE_SEGMENTS, mutate, mutation, UNKNOWN_QUERY } from './hostile.ts';
import { formFields, jsonText, multipartBody, Pairs, toTree } from './json-text.ts';
import type { FuzzOperation, FuzzParameter } from './operations.ts';
import { valueOf, type Hints } from './schema-values.ts';

export interface Fixtures {
  customerKey: string;
  adminToken: string;
  /** Real values for path parameters by name (customer_id, key_id, task_id, model_id). */
  ids: Record<string, string[]>;
  /** Public model ids of the catalogue, and by group (messages, chat, video). */
  models: string[];
  modelsByGroup: Record<string, string[]>;
  bodyLimitBytes: number;
}

export type Credential = 'valid' | 'none' | 'wrong' | 'malformed' | 'other-surface';

export interface GeneratedRequest extends FuzzRequest {
  credential: Credential;
  /** What kind of body was sent, for the report. */
  bodyKind: string;
}

const BOUNDARY = 'fuzzBoundary7MA4YWxkTrZu0gW';

/** Field names that must never reach Object.prototype (the multipart decoder nests brackets). */
export const PROTOTYPE_FIELD_NAMES = [
  '__proto__[x]',
  'constructor[prototype][x]',
  'a[__proto__][x]',
  '__proto__]x',
  'prototype[x]',
  'toString',
  'x[constructor][prototype][y]',
  'a[b][c][d][e][f][g][h][i][j]',
  '',
  'a\u0000b',
  'content[][__proto__][x]',
];

const simpleMessages = fc.array(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(fc.string({ maxLength: 40 }), fc.constant([{ type: 'text', text: 'hello' }])) }),
  { minLength: 1, maxLength: 3 },
);

export function hintsFor(fixtures: Fixtures, op: FuzzOperation): Hints {
  const group = op.operationId.startsWith('messages_') ? 'messages' : op.operationId.startsWith('videos_') ? 'video' : undefined;
  const ownModels = (group && fixtures.modelsByGroup[group]) || fixtures.models;
  return (name, schema, fromSchema) => {
    if (name === 'model' && schema.type === 'string') {
      return fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...ownModels) },
        { weight: 2, arbitrary: fc.constantFrom(...fixtures.models) },
        { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
      );
    }
    if (name === 'max_tokens') return fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: -5, max: 2_000_000 }));
    if (name === 'allowed_models') return fc.option(fc.uniqueArray(fc.constantFrom(...fixtures.models), { maxLength: 2 }), { nil: null });
    // Values the catalogue accepts, so that some requests get past validation to the ledger and the upstream.
    if (name === 'messages' && schema.type === 'array') return fc.oneof({ weight: 3, arbitrary: simpleMessages }, { weight: 1, arbitrary: fromSchema() });
    if (name === 'seconds') return fc.oneof(fc.constantFrom(4, 5, 8, 10, '5', '8'), fc.integer({ min: -1, max: 100 }));
    if (name === 'resolution') return fc.oneof(fc.constantFrom('480p', '720p', '1080p', '768P', '2K'), fc.string({ maxLength: 8 }));
    return undefined;
  };
}

function credentialHeaders(op: FuzzOperation, fixtures: Fixtures, credential: Credential, useXApiKey: boolean): Record<string, string> {
  const admin = op.document === 'admin';
  const xApiKey = useXApiKey && op.schemes.includes('ApiKeyHeader');
  const bearer = (token: string): Record<string, string> => (xApiKey ? { 'x-api-key': token } : { authorization: `Bearer ${token}` });
  switch (credential) {
    case 'valid':
      return admin ? { authorization: `Bearer ${fixtures.adminToken}` } : bearer(fixtures.customerKey);
    case 'none':
      return {};
    case 'wrong':
      return bearer(admin ? `adm_${'x'.repeat(40)}` : `sk-gw-${'x'.repeat(40)}`);
    case 'malformed':
      return { authorization: useXApiKey ? 'Basic Zm9vOmJhcg==' : `Bearer ${fixtures.customerKey} trailing` };
    case 'other-surface':
      return bearer(admin ? fixtures.customerKey : fixtures.adminToken);
  }
}

const encoded = (value: unknown) => encodeURIComponent(String(value));

function pathValue(op: FuzzOperation, fixtures: Fixtures, p: FuzzParameter): fc.Arbitrary<string> {
  const real = fixtures.ids[p.name] ?? [];
  return fc.oneof(
    { weight: real.length > 0 ? 5 : 0, arbitrary: real.length > 0 ? fc.constantFrom(...real.map(encoded)) : fc.constant('x') },
    { weight: 2, arbitrary: valueOf(op.root, p.schema).map(encoded) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  );
}

function queryString(op: FuzzOperation): fc.Arbitrary<string> {
  const declared = op.query.map((p) =>
    fc.option(
      fc.oneof(
        valueOf(op.root, p.schema).map((v) => `${p.name}=${encoded(v)}`),
        fc.constantFrom(...HOSTILE_QUERY_VALUES).map((v) => `${p.name}=${v}`),
      ),
      { nil: undefined, freq: 2 },
    ),
  );
  return fc.tuple(fc.tuple(...declared), fc.subarray(UNKNOWN_QUERY, { maxLength: 2 })).map(([known, unknown]) => {
    const parts = [...known.filter((q): q is string => q !== undefined), ...unknown];
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

function declaredHeaders(op: FuzzOperation): fc.Arbitrary<Record<string, string>> {
  const entries = op.headers.map((p) =>
    fc.option(
      fc
        .oneof(
          valueOf(op.root, p.schema).map((v) => String(v).replace(/[^\x20-\x7e]/g, '')),
          fc.constantFrom(...HOSTILE_HEADER_VALUES),
        )
        .map((v) => [p.name.toLowerCase(), v] as const),
      { nil: undefined, freq: 2 },
    ),
  );
  return fc.tuple(...entries).map((list) => Object.fromEntries(list.filter((e): e is readonly [string, string] => e !== undefined)));
}

interface Body {
  kind: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

function bodyFor(op: FuzzOperation, fixtures: Fixtures): fc.Arbitrary<Body> {
  const hints = hintsFor(fixtures, op);
  const schema = op.bodies['application/json'] ?? op.bodies['multipart/form-data'];
  const valid = schema ? valueOf(op.root, schema, hints) : fc.constant({});
  const mutated = fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) => mutate(v, ms));
  const json =
    (kind: string, type = 'application/json') =>
    (tree: unknown): Body => ({ kind, headers: { 'content-type': type }, body: jsonText(tree) });
  const multipart =
    (kind: string) =>
    (fields: Array<[string, string]>): Body => ({
      kind,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: multipartBody(fields, BOUNDARY),
    });
  return fc.oneof(
    { weight: 4, arbitrary: valid.map(json('valid json')) },
    { weight: 6, arbitrary: mutated.map(json('mutated json')) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...HOSTILE_BODIES).map((body): Body => ({ kind: 'hostile body', headers: { 'content-type': 'application/json' }, body })),
    },
    { weight: 2, arbitrary: fc.oneof(valid, mutated).map((v) => multipart('multipart')(formFields(toTree(v)))) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...PROTOTYPE_FIELD_NAMES))
        .map(([v, name]) => multipart('multipart, hostile field name')([...formFields(toTree(v)), [name, 'polluted']])),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/xml',
            'multipart/form-data',
            'application/json; charset=utf-16',
            'multipart/form-data; boundary=',
            '*/*',
          ),
        )
        .map(([v, type]) => json(`wrong content-type ${type}`, type)(v)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>({ kind: 'empty', headers: {} }, { kind: 'empty json', headers: { 'content-type': 'application/json' }, body: '' }),
    },
    {
      weight: 1,
      arbitrary: valid.map((v): Body => ({
        kind: 'too large',
        headers: { 'content-type': 'application/json' },
        body: jsonText(new Pairs([['pad', 'p'.repeat(fixtures.bodyLimitBytes)], ...toPairs(v)])),
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom('application/json', `multipart/form-data; boundary=${BOUNDARY}`),
          fc.constantFrom(String(fixtures.bodyLimitBytes + 1), '99999999999', '9007199254740993'),
        )
        .map(([v, type, length]): Body => ({
          kind: `content-length lie ${length}`,
          headers: { 'content-type': type, 'content-length': length },
          body: jsonText(v).slice(0, 64),
        })),
    },
  );
}

const toPairs = (value: unknown): Array<[string, unknown]> => (value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : []);

export function requestFor(op: FuzzOperation, fixtures: Fixtures): fc.Arbitrary<GeneratedRequest> {
  const takesBody = Object.keys(op.bodies).length > 0;
  const credential = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Credential>('valid') },
    { weight: 1, arbitrary: fc.constantFrom<Credential>('none', 'wrong', 'malformed', 'other-surface') },
  );
  const path = fc
    .tuple(...op.path.map((p) => pathValue(op, fixtures, p)))
    .map((values) => op.path.reduce((t, p, i) => t.replace(`{${p.name}}`, values[i]!), op.template));
  const body = takesBody
    ? bodyFor(op, fixtures)
    : fc.oneof({ weight: 4, arbitrary: fc.constant<Body>({ kind: 'none', headers: {} }) }, { weight: 1, arbitrary: bodyFor(op, fixtures) });
  return fc.record({ credential, useXApiKey: fc.boolean(), path, query: queryString(op), headers: declaredHeaders(op), body }).map((r) => ({
    method: op.method,
    path: `${r.path}${r.query}`,
    headers: { ...r.headers, ...credentialHeaders(op, fixtures, r.credential, r.useXApiKey), ...r.body.headers },
    ...(r.body.body === undefined ? {} : { body: r.body.body }),
    credential: r.credential,
    bodyKind: r.body.kind,
  }));
}
