// What a failed request validation says: Ajv's errors turned into the one problem a client reads
// first (path, then query, headers, body), as a sentence naming the field.
import type { ErrorObject } from 'ajv/dist/2020.js';

export type RequestPart = 'path' | 'query' | 'header' | 'body';
export interface FieldProblem {
  message: string;
  param: string | null;
  /** Where the problem is: a path parameter that fails its schema names nothing (404). */
  where: RequestPart;
}

const PLACES: Record<string, RequestPart> = { path: 'path', query: 'query', header: 'header', requestBody: 'body' };
const ORDER: RequestPart[] = ['path', 'query', 'header', 'body'];

/** The first problem in request order (path, query, headers, body), as a sentence naming the field. */
export function firstProblem(errors: ErrorObject[]): FieldProblem {
  const located = errors.map((error) => {
    const [place, ...rest] = error.instancePath.split('/').filter(Boolean);
    const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
    // A missing part as a whole (`requestBody`, `query`) comes with an empty instance path.
    if (place === undefined && missing) return { where: PLACES[missing] ?? 'body', segments: [] as string[], error, whole: true };
    return { where: PLACES[place ?? ''] ?? 'body', segments: rest.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')), error, whole: false };
  });
  located.sort((a, b) => ORDER.indexOf(a.where) - ORDER.indexOf(b.where));
  const { where, segments, error, whole } = located[0]!;
  if (whole && where === 'body') return { message: 'A request body is required.', param: null, where };
  const missing = error.keyword === 'required' && !whole ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  const path = missing ? [...segments, missing] : segments;
  const param = path.length ? path.join('.') : null;
  if (missing) return { message: `Missing required ${where === 'body' ? 'field' : `${where} parameter`} \`${param}\`.`, param, where };
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty;
    const field = [...segments, extra].filter(Boolean).join('.');
    return { message: `Unknown ${where} field \`${field}\`.`, param: field, where };
  }
  return { message: `Invalid ${where} field \`${param ?? '(root)'}\`: ${error.message ?? 'invalid value'}.`, param, where };
}
