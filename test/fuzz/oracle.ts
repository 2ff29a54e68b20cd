// What must hold for every answer, whatever was sent: an answer at all, no 5xx, a request-id, the
// endpoint's error shape on every 4xx, a status the operation's contract declares and a body that
// validates against it, no stack traces, and 401 for every credential-less call to an operation
// that needs one (nothing is looked at before authentication); a 405 with Allow for a method the
// path does not serve.
import type { Spec } from '../../src/http/spec.ts';
import type { FuzzResponse } from './http-client.ts';
import { errorShapeOf, type FuzzOperation } from './operations.ts';
import type { GeneratedRequest } from './requests.ts';

export interface Surfaces {
  public: Spec;
  admin: Spec;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNullableString = (v: unknown) => v === null || typeof v === 'string';

/** The error-shape problems of a body, or none. */
export function errorShapeProblems(body: unknown, shape: 'anthropic' | 'openai' | 'google'): string[] {
  const b = body as Record<string, any> | null;
  if (!b || typeof b !== 'object') return ['error body is not a JSON object'];
  if (shape === 'anthropic') {
    const ok = b.type === 'error' && b.error && isString(b.error.type) && isString(b.error.message) && isString(b.request_id) && Object.keys(b).length === 3;
    return ok ? [] : [`not the Anthropic error shape {"type":"error","error":{"type","message"},"request_id"}`];
  }
  const e = b.error as Record<string, unknown> | undefined;
  if (shape === 'google') {
    const ok = e && typeof e.code === 'number' && isString(e.message) && isString(e.status) && Object.keys(b).length === 1;
    return ok ? [] : ['not Google\'s error shape {"error":{"code","message","status"}}'];
  }
  const ok = e && isString(e.message) && isString(e.type) && isNullableString(e.code) && isNullableString(e.param) && Object.keys(b).length === 1;
  return ok ? [] : ['not the error shape {"error":{"message","type","code","param"}}'];
}

/** The methods the contracts declare on the path a request names (by its template), sorted. */
function declaredMethods(operations: Map<string, FuzzOperation>, rawPath: string): string[] {
  const path = rawPath.split('?')[0]!.replace(/(.)\/$/, '$1');
  const methods = new Set<string>();
  for (const op of operations.values()) {
    const pattern = op.template
      .split(/\{\w+\}/)
      .map((piece) => piece.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    if (new RegExp(`^${pattern}$`).test(path)) for (const method of op.serves) methods.add(method);
  }
  return [...methods].sort();
}

/** Which operation the gateway routes this method and raw path to, if any. */
export function routed(surfaces: Surfaces, method: string, rawPath: string): { operationId: string } | 'malformed' | undefined {
  const pathOnly = rawPath.split('?')[0]!;
  // As src/http/app.ts chooses: /admin/... and the conventional /metrics are the operators'.
  const spec =
    pathOnly === '/admin' || pathOnly.startsWith('/admin/') || pathOnly === '/metrics' || pathOnly === '/metrics/' ? surfaces.admin : surfaces.public;
  const matched = spec.match(method, pathOnly);
  if (!matched || 'allowed' in matched) return undefined;
  if ('malformed' in matched) return 'malformed';
  return { operationId: matched.operation.operationId };
}

export function checkResponse(surfaces: Surfaces, operations: Map<string, FuzzOperation>, request: GeneratedRequest, response: FuzzResponse): string[] {
  if (response.timedOut) return ['no answer in time'];
  const problems: string[] = [];
  const { status } = response;
  if (status >= 500) problems.push(`status ${status}`);
  if (!isString(response.headers['request-id']) || !/^req_[A-Za-z0-9]+$/.test(response.headers['request-id'])) problems.push('no request-id header');
  // Streams and files (a finished video's bytes) are not JSON; everything else must be.
  const type = String(response.headers['content-type'] ?? '');
  const streamed =
    type.startsWith('text/event-stream') ||
    (status < 400 && /^(video|image|audio)\/|^application\/octet-stream|^text\/plain|^text\/csv|^application\/x-ndjson/.test(type));
  let body: unknown;
  if (!streamed && request.method !== 'HEAD') {
    try {
      body = JSON.parse(response.text);
    } catch {
      problems.push('body is not JSON');
    }
  }
  if (status >= 400 && request.method !== 'HEAD') {
    problems.push(...errorShapeProblems(body, errorShapeOf(request.path)));
    const message = String((body as { error?: { message?: unknown } })?.error?.message ?? '');
    if (/\.ts:\d+|node_modules|\bat [\w.<>]+ \(/.test(message)) problems.push('error message carries a stack trace');
  }
  const route = routed(surfaces, request.method, request.path);
  // A path the contracts have under other methods: a 405 naming them in Allow; no operation at all
  // (or a path no operation can decode): a 404. Whatever the body and credentials.
  const allowed = route ? [] : declaredMethods(operations, request.path);
  if (allowed.length > 0) {
    if (status !== 405) problems.push(`${request.method} on a path served for ${allowed.join(', ')} got ${status}, not 405`);
    else if (response.headers['allow'] !== allowed.join(', ')) problems.push(`Allow is "${String(response.headers['allow'])}", not "${allowed.join(', ')}"`);
  } else if ((!route || route === 'malformed') && status !== 404) problems.push(`${route ?? 'unrouted'} path got ${status}, not 404`);
  if (route && route !== 'malformed') {
    const op = operations.get(route.operationId)!;
    if (!op.statuses.has(String(status)) && !op.statuses.has('default')) problems.push(`status ${status} is not declared for ${op.operationId}`);
    if (body !== undefined) {
      const spec = op.document === 'admin' ? surfaces.admin : surfaces.public;
      const mismatch = spec.validateResponse(op.operationId, status, body);
      if (mismatch) problems.push(`body does not match the contract: ${mismatch}`);
    }
    const needsKey = !op.anonymous && request.credential !== 'valid';
    const wrongKey = op.anonymous && op.schemes.length > 0 && (request.credential === 'wrong' || request.credential === 'other-surface');
    if ((needsKey || wrongKey) && status !== 401) problems.push(`credential "${request.credential}" got ${status}, not 401`);
  }
  return problems;
}
