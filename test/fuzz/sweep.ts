// The fixed part of the fuzz run: every hostile input of hostile.ts, one at a time, in every place
// of every operation (each path parameter, each declared query parameter and header, the body as
// JSON and as multipart), on top of one valid request, so each kind of input is tried on each
// operation whatever the seed draws. The random part (requests.ts) then combines them.
import fc from 'fast-check';
import {
  DEEP,
  HOSTILE_BODIES,
  HOSTILE_HEADER_VALUES,
  HOSTILE_KEYS,
  HOSTILE_NUMBERS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_SEGMENTS,
  HOSTILE_STRINGS,
  prototypeShaped,
  UNKNOWN_QUERY,
} from './hostile.ts';
import { deepText, formFields, jsonText, multipartBody, Pairs, Raw, toTree } from './json-text.ts';
import type { FuzzOperation } from './operations.ts';
import { hintsFor, PROTOTYPE_FIELD_NAMES, type Credential, type Fixtures, type GeneratedRequest } from './requests.ts';
import { valueOf } from './schema-values.ts';

const BOUNDARY = 'sweepBoundaryQm9vdA';
/** Leaves of the valid body replaced in turn (the rest are the random part's job). */
const MAX_LEAVES = 6;

export function sweepFor(op: FuzzOperation, fixtures: Fixtures, seed: number): GeneratedRequest[] {
  const schema = op.bodies['application/json'] ?? op.bodies['multipart/form-data'];
  const valid = schema ? fc.sample(valueOf(op.root, schema, hintsFor(fixtures, op)), { seed, numRuns: 1 })[0] : undefined;
  const realPath = (override?: { name: string; value: string }) =>
    op.path.reduce(
      (t, p) => t.replace(`{${p.name}}`, override?.name === p.name ? override.value : encodeURIComponent(fixtures.ids[p.name]?.[0] ?? 'x')),
      op.template,
    );
  const auth = (credential: Credential = 'valid'): Record<string, string> => {
    const token = op.document === 'admin' ? fixtures.adminToken : fixtures.customerKey;
    return credential === 'valid' ? { authorization: `Bearer ${token}` } : {};
  };
  const base = (parts: Partial<GeneratedRequest> & { bodyKind: string }): GeneratedRequest => ({
    method: op.method,
    path: realPath(),
    headers: { ...auth(), ...(valid !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(valid !== undefined ? { body: JSON.stringify(valid) } : {}),
    credential: 'valid',
    ...parts,
  });
  const out: GeneratedRequest[] = [base({ bodyKind: 'valid json' })];

  for (const p of op.path)
    for (const value of HOSTILE_SEGMENTS) out.push(base({ path: realPath({ name: p.name, value }), bodyKind: `path ${p.name}=${value.slice(0, 20)}` }));
  for (const p of op.query)
    for (const value of HOSTILE_QUERY_VALUES) out.push(base({ path: `${realPath()}?${p.name}=${value}`, bodyKind: `query ${p.name}=${value.slice(0, 30)}` }));
  out.push(base({ path: `${realPath()}?${UNKNOWN_QUERY.join('&')}`, bodyKind: 'unknown query parameters' }));
  for (const p of op.headers)
    for (const value of HOSTILE_HEADER_VALUES)
      out.push(base({ headers: { ...base({ bodyKind: '' }).headers, [p.name.toLowerCase()]: value }, bodyKind: `header ${p.name}` }));

  if (schema) {
    const json = (kind: string, body: string | Buffer, credential: Credential = 'valid', type = 'application/json') =>
      out.push(base({ headers: { ...auth(credential), 'content-type': type }, body, credential, bodyKind: kind }));
    for (const body of HOSTILE_BODIES) json('hostile body', body);
    for (const credential of ['none', 'valid'] as const) {
      // Every leaf of the valid body in turn replaced by each hostile number and string, plus a deep nest.
      const paths = leaves(valid).slice(0, credential === 'none' ? 1 : MAX_LEAVES);
      for (const [i, leaf] of paths.entries()) {
        for (const value of [...HOSTILE_NUMBERS, ...HOSTILE_STRINGS, ...prototypeShaped(), new Raw(deepText(DEEP, 'array'))])
          json(`leaf ${leaf} = ${String(value).slice(0, 30)}`, jsonText(replaceLeaf(valid, i, value)), credential);
      }
      for (const key of HOSTILE_KEYS)
        json(`extra key ${JSON.stringify(key.slice(0, 20))}`, jsonText(new Pairs([...entries(valid), [key, new Pairs([['x', 'polluted']])]])), credential);
      const first = entries(valid)[0];
      if (first) json('duplicate key', jsonText(new Pairs([...entries(valid), [first[0], new Raw('{"__proto__":{"x":1}}')]])), credential);
      for (const name of PROTOTYPE_FIELD_NAMES)
        json(
          `multipart field ${JSON.stringify(name)}`,
          multipartBody([...formFields(toTree(valid)), [name, 'polluted']], BOUNDARY),
          credential,
          `multipart/form-data; boundary=${BOUNDARY}`,
        );
    }
    json('empty body', '', 'valid');
    json('wrong content-type', JSON.stringify(valid), 'valid', 'text/plain');
    json('multipart without boundary', 'x', 'valid', 'multipart/form-data');
    json('broken multipart', `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end`, 'valid', `multipart/form-data; boundary=${BOUNDARY}`);
    json(
      'multipart file part',
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNG\r\n--${BOUNDARY}--\r\n`,
      'valid',
      `multipart/form-data; boundary=${BOUNDARY}`,
    );
  }
  for (const length of [String(fixtures.bodyLimitBytes + 1), '99999999999']) {
    for (const type of ['application/json', `multipart/form-data; boundary=${BOUNDARY}`]) {
      out.push(
        base({
          headers: { ...auth(), 'content-type': type, 'content-length': length },
          body: '{"a":',
          bodyKind: `content-length lie ${length} (${type.split(';')[0]})`,
        }),
      );
    }
  }
  return out;
}

const entries = (value: unknown): Array<[string, unknown]> => (value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : []);

/** Paths of the leaves of a value, depth first. */
function leaves(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  return [path];
}

function replaceLeaf(value: unknown, index: number, replacement: unknown): unknown {
  let seen = -1;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return new Pairs(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    seen++;
    return seen === index ? replacement : node;
  };
  return walk(value);
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/**
 * Methods no operation declares on each path of both contracts (POST /healthz, PUT /v1/models...),
 * with prototype-shaped multipart fields and JSON keys, with and without credentials: there is no
 * operation, so no body may be read and nothing may change.
 */
export function unroutedSweep(operations: FuzzOperation[], fixtures: Fixtures): GeneratedRequest[] {
  const out: GeneratedRequest[] = [];
  const templates = new Map<string, Set<string>>();
  for (const op of operations) templates.set(op.template, new Set([...(templates.get(op.template) ?? []), ...op.serves]));
  const bodies: Array<[string, string, string]> = [
    [
      'multipart prototype field names',
      `multipart/form-data; boundary=${BOUNDARY}`,
      multipartBody(
        PROTOTYPE_FIELD_NAMES.map((name): [string, string] => [name, 'polluted']),
        BOUNDARY,
      ).toString('utf8'),
    ],
    ['JSON prototype keys', 'application/json', '{"__proto__":{"x":"polluted"},"constructor":{"prototype":{"x":"polluted"}}}'],
  ];
  for (const [template, declared] of templates) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(fixtures.ids[name]?.[0] ?? 'x'));
    const token = template.startsWith('/admin/') ? fixtures.adminToken : fixtures.customerKey;
    for (const method of METHODS.filter((m) => !declared.has(m))) {
      for (const [kind, type, body] of bodies) {
        for (const credential of ['none', 'valid'] as const) {
          out.push({
            method,
            path,
            headers: { 'content-type': type, ...(credential === 'valid' ? { authorization: `Bearer ${token}` } : {}) },
            body,
            credential,
            bodyKind: kind,
          });
        }
      }
    }
  }
  return out;
}
