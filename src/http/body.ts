// Request bodies, read only for an operation that takes one, after routing and authentication:
// size-limited while reading, cut when they stall, JSON parsed and checked for depth, multipart
// decoded without prototype keys. Bodies the gateway stores (everything but passthrough) are
// checked for text that PostgreSQL cannot hold (NUL, unpaired surrogates) before anything reaches
// the database.
import type { IncomingMessage } from 'node:http';
import { Failure } from '../domain/failure.ts';
import { HttpError } from './errors.ts';
import { parseMultipart } from './multipart.ts';
import type { SpecOperation } from './spec.ts';

/** Deeper JSON than this is refused: no real request nests so far, and recursion elsewhere might. */
export const MAX_JSON_DEPTH = 128;

export interface ParsedBody {
  /** The bytes as received (forwarded as they are on passthrough operations). */
  raw: Buffer;
  value: unknown;
  form: 'json' | 'multipart' | 'none';
}

const tooLarge = (limit: number) => new Failure(HttpError.RequestTooLarge, `Request body exceeds the limit of ${limit} bytes.`);
const EMPTY: ParsedBody = { raw: Buffer.alloc(0), value: undefined, form: 'none' };

/**
 * `idleMs`: a body with no byte for this long is answered 408 and its connection closed (nothing
 * is charged: no hold exists before the body is read). Only the gaps count, so a large body on a
 * slow link that keeps moving is never cut.
 */
export async function readBody(req: IncomingMessage, operation: SpecOperation, limitBytes: number, idleMs: number): Promise<ParsedBody | Failure> {
  if (operation.bodyTypes.size === 0) {
    // A body the operation does not take is dropped unparsed, but drained first (for at most a
    // second, nothing kept): answering while the client still sends would reset the connection
    // and could cut the answer short. One declared past the limit is refused without waiting.
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limitBytes) return tooLarge(limitBytes);
    if (hasBody(req)) await drain(req, 1_000);
    return EMPTY;
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  // A declared length over the limit is refused before reading, whatever the type: waiting for
  // bytes that may never come would hold the connection open.
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return tooLarge(limitBytes);
  // Bodies are read as sent: a compressed one would only fail as invalid JSON, and inflating it
  // would need its own limits (a small body can expand a thousandfold). Drained, then refused.
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && !IDENTITY.test(encoding)) {
    if (hasBody(req)) await drain(req, 1_000);
    return new Failure(HttpError.UnsupportedMediaType, 'Compressed request bodies (Content-Encoding) are not accepted; send the body uncompressed.');
  }
  if (type === 'multipart/form-data') {
    if (!operation.bodyTypes.has('multipart/form-data'))
      return new Failure(HttpError.UnsupportedMediaType, 'This operation takes a JSON body (content-type: application/json).');
    const form = await untilStalled(req, idleMs, parseMultipart(req, limitBytes));
    if (form instanceof Failure) return form;
    const problem = checkJson(form, !operation.passthrough);
    if (problem) return new Failure(HttpError.InvalidRequest, problem.message, { param: problem.param });
    return { raw: Buffer.alloc(0), value: form, form: 'multipart' };
  }
  if (!operation.bodyTypes.has('application/json'))
    return new Failure(HttpError.UnsupportedMediaType, `This operation does not take a ${type || 'JSON'} body.`);
  // A missing or other content type is read as JSON: curl -d sends form-urlencoded by default.
  const raw = await readAll(req, limitBytes, idleMs);
  if (raw instanceof Failure) return raw;
  if (raw.length === 0) return EMPTY;
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    return new Failure(HttpError.InvalidJson, `The body is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  const problem = checkJson(value, !operation.passthrough);
  if (problem) return new Failure(HttpError.InvalidRequest, problem.message, { param: problem.param });
  return { raw, value, form: 'json' };
}

/** No coding at all: empty, or only `identity` (repeated headers arrive joined by commas). */
const IDENTITY = /^[\s,]*(?:identity\s*(?:,[\s,]*|$))*$/i;
const hasBody = (req: IncomingMessage) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

function drain(req: IncomingMessage, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      resolve();
    };
    const onData = () => undefined;
    const timer = setTimeout(done, timeoutMs);
    req.on('data', onData);
    req.on('end', done);
    req.on('error', done);
  });
}

const stalledBody = (idleMs: number) =>
  new Failure(HttpError.RequestTimeout, `The request body stopped arriving: no byte for ${idleMs} ms.`, { headers: { connection: 'close' } });

/**
 * What `reading` gives, or a 408 once no body byte has come for `idleMs`. The connection is
 * closed with the answer: the rest of the body may still come, and would be taken for the next
 * request.
 */
function untilStalled<T>(req: IncomingMessage, idleMs: number, reading: Promise<T>): Promise<T | Failure> {
  if (req.complete) return reading;
  let timer: NodeJS.Timeout | undefined;
  const onData = () => timer?.refresh();
  const stalled = new Promise<Failure>((resolve) => {
    timer = setTimeout(() => resolve(stalledBody(idleMs)), idleMs);
  });
  req.on('data', onData);
  return Promise.race([reading, stalled]).finally(() => {
    clearTimeout(timer);
    req.off('data', onData);
  });
}

/**
 * The whole body, or a 408 once no byte has come for `idleMs` (untilStalled's deadline, kept in
 * here: a JSON body is every request's, and a race of three promises per request cost more than
 * this one timer).
 */
function readAll(req: IncomingMessage, limitBytes: number, idleMs: number): Promise<Buffer | Failure> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle = req.complete
      ? undefined
      : setTimeout(() => {
          idle = undefined;
          resolve(stalledBody(idleMs));
        }, idleMs);
    const onData = (chunk: Buffer) => {
      idle?.refresh();
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        req.resume(); // drain the rest without keeping it
        resolve(tooLarge(limitBytes));
      } else chunks.push(chunk);
    };
    const onEnd = () => (cleanup(), resolve(Buffer.concat(chunks, size)));
    const onError = () => (cleanup(), resolve(new Failure(HttpError.InvalidRequest, 'The request body could not be read.')));
    const cleanup = () => {
      clearTimeout(idle);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Walks a parsed JSON value without recursion: refuses nesting deeper than MAX_JSON_DEPTH and
 * `__proto__` keys, and, when the body is stored, strings with NUL or unpaired surrogates.
 * The offending text is never echoed: only the field's path is named.
 */
export function checkJson(value: unknown, stored: boolean): { message: string; param: string | null } | null {
  // Most bodies are fine: a walk that builds no path says so at a few ns a value (a body of
  // millions of small values took seconds of the event loop with a path per value). Only a body
  // with a problem is walked again to name where it is.
  return jsonHasProblem(value, stored) ? firstProblem(value, stored) : null;
}

function jsonHasProblem(value: unknown, stored: boolean): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (typeof node === 'string') {
      if (stored && UNSTORABLE.test(node)) return true;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    const children = Array.isArray(node) ? node : Object.values(node as object);
    if (!Array.isArray(node)) for (const key of Object.keys(node as object)) if (key === '__proto__' || (stored && UNSTORABLE.test(key))) return true;
    for (const child of children as unknown[]) {
      if ((child !== null && typeof child === 'object') || (stored && typeof child === 'string')) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The first problem in walking order, named by its path. */
function firstProblem(value: unknown, stored: boolean): { message: string; param: string | null } | null {
  const stack: Array<{ node: unknown; depth: number; path: string }> = [{ node: value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (stored && UNSTORABLE.test(node))
        return { message: `The field \`${path || '(root)'}\` contains a NUL character or an unpaired surrogate, which cannot be stored.`, param: path || null };
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { message: `The body nests deeper than ${MAX_JSON_DEPTH} levels (at \`${path}\`).`, param: path || null };
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], depth: depth + 1, path: path ? `${path}.${i}` : String(i) });
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = path ? `${path}.${key}` : key;
      if (key === '__proto__') return { message: `The key \`__proto__\` is not accepted (at \`${child}\`).`, param: child };
      if (stored && UNSTORABLE.test(key)) return { message: 'A key contains a NUL character or an unpaired surrogate.', param: path || null };
      stack.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1, path: child });
    }
  }
  return null;
}
