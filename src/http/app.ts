// The HTTP front: one dispatcher for both surfaces. Per request: id -> route -> authentication ->
// body (only for an operation that takes one) -> validation -> handler -> reply -> access log and
// request log. Nothing is parsed before the route and the caller are known.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { randomBase62 } from '../shared/ids.ts';
import type { Caller } from '../customers/service.ts';
import { Failure } from '../domain/failure.ts';
import type { Sink } from '../domain/sink.ts';
import type { Logger } from '../logger.ts';
import type { RequestMetrics } from '../metrics/hooks.ts';
import type { Services } from '../services.ts';
import { adminTokenMatches, authenticateCustomer } from './auth.ts';
import { readBody } from './body.ts';
import { createAccessLog } from './access-log.ts';
import { CORS_PREFLIGHT, type Cors } from './cors.ts';
import { HttpError, shapeOfPath } from './errors.ts';
import { sendFailure, sendJson, startExchange, type Exchange } from './exchange.ts';
import type { Handler, Reply, RequestContext } from './handler.ts';
import { responseSink } from './sink.ts';
import type { Spec, SpecOperation } from './spec.ts';

export interface Surface {
  spec: Spec;
  handlers: Record<string, Handler>;
  /** Operator surface: authenticated by the admin token instead of customer keys. */
  admin?: boolean;
}

export interface AppOptions {
  publicSurface: Surface;
  adminSurface: Surface;
  services: Services;
  logger: Logger;
  adminToken: string;
  bodyLimitBytes: number;
  /** A request body with no byte for this long is answered 408 (HTTP_BODY_IDLE_TIMEOUT_MS). */
  bodyIdleTimeoutMs: number;
  /** Check every JSON response against the spec; a mismatch becomes a 502 and an error log. */
  validateResponses: boolean;
  /** Keep an incoming `x-request-id` (set by a trusted proxy) instead of minting one. */
  trustRequestId?: boolean;
  /** Told about every request at the access-log point. */
  metrics?: RequestMetrics;
  /** Cross-origin access to the public surface; none when CORS is off. */
  cors?: Cors;
}

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The request listener of both surfaces. Plain `node:http`, no framework in between: routing is the
 * spec's (a map for static paths), and Express only wrapped this one function while costing CPU
 * per request and giving every request and response object a hidden class of its own (its
 * `setPrototypeOf` on each), see docs/performance.md.
 */
export function createApp(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { logger, services } = options;
  const accessLog = createAccessLog({ logger, requestLogs: services.requestLogs, metrics: options.metrics });
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    // GET /metrics is an operator operation (admin token), though its path is the conventional one.
    const surface =
      path === '/admin' || path.startsWith('/admin/') || path === '/metrics' || path === '/metrics/' ? options.adminSurface : options.publicSurface;
    void handle(surface, req, res, path);
  };

  async function handle(surface: Surface, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const incoming = options.trustRequestId ? req.headers['x-request-id'] : undefined;
    const requestId = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : `req_${randomBase62(24)}`;
    const { exchange, handled } = startExchange(requestId);
    res.setHeader('request-id', requestId);
    res.setHeader('x-request-id', requestId); // the OpenAI SDKs read this one
    res.once('close', () => accessLog.finish(surface.admin === true, req, res, exchange));
    const shape = shapeOfPath(path);
    const crossOrigin = surface.admin ? undefined : options.cors?.answerHeaders(req.headers);
    if (crossOrigin) for (const name in crossOrigin) res.setHeader(name, crossOrigin[name]!);
    try {
      const reply = await dispatch(surface, req, res, path, exchange);
      exchange.outcome = reply instanceof Failure ? {} : reply;
      if ('streamed' in reply) return;
      const failure = reply instanceof Failure ? reply : 'failure' in reply ? reply.failure : undefined;
      if (failure) return sendFailure(res, failure, shape, exchange);
      const { status, body, headers } = reply as { status: number; body: unknown; headers?: Record<string, string> };
      const mismatch =
        options.validateResponses && exchange.operationId && body !== undefined ? surface.spec.validateResponse(exchange.operationId, status, body) : null;
      if (mismatch) {
        logger.error({ request_id: requestId, operation: exchange.operationId, status, mismatch }, 'response does not match the spec');
        return sendFailure(res, new Failure(HttpError.ResponseValidationFailed, `Response failed contract validation: ${mismatch}`), shape, exchange);
      }
      sendJson(res, status, body, headers, exchange);
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      logger.error({ request_id: requestId, operation: exchange.operationId, err: error }, unavailable ? 'database unavailable' : 'unhandled error');
      if (res.headersSent) res.destroy();
      else
        sendFailure(
          res,
          unavailable ? new Failure(HttpError.DatabaseUnavailable, '', { headers: { 'retry-after': '1' } }) : new Failure(HttpError.Internal, ''),
          shape,
          exchange,
        );
    } finally {
      handled();
    }
  }

  async function dispatch(surface: Surface, req: IncomingMessage, res: ServerResponse, path: string, exchange: Exchange): Promise<Reply> {
    const matched = surface.spec.match(req.method ?? 'GET', path);
    if (!matched) return new Failure(HttpError.RouteNotFound, `No route for ${req.method} ${path.slice(0, 200)}.`);
    // A path that cannot name a resource (bad percent-encoding, an id outside its pattern) is a 404
    // like any other unknown id: every operation with a path parameter declares one.
    if ('malformed' in matched) return new Failure(HttpError.RouteNotFound, 'The path has malformed percent-encoding, so it names nothing.');
    if ('allowed' in matched) {
      const preflight = surface.admin ? undefined : options.cors?.preflight(req.method, matched.allowed, req.headers);
      if (preflight) {
        exchange.operationId = CORS_PREFLIGHT;
        return { status: 204, body: undefined, headers: preflight };
      }
      return new Failure(HttpError.MethodNotAllowed, `${req.method} is not served at this path; it takes ${matched.allowed.join(', ')}.`, {
        headers: { allow: matched.allowed.join(', ') },
      });
    }
    const { operation, params } = matched;
    exchange.operationId = operation.operationId;
    if (params.model_id) exchange.model = params.model_id;

    let caller: Caller | null = null;
    if (surface.admin) {
      if (operation.schemes.size > 0 && !adminTokenMatches(req.headers, options.adminToken)) return new Failure(HttpError.InvalidAdminToken, '');
    } else if (operation.schemes.size > 0) {
      const auth = await authenticateCustomer(req.headers, operation, services.customers);
      if (auth.kind === 'rejected') return auth.failure;
      if (auth.kind === 'caller') caller = exchange.caller = auth.caller;
    }

    // No id, cursor or filter can hold NUL or a lone surrogate: no row has one, and the database
    // refuses the text. A path naming such a thing names nothing (404); a query with one is a 400.
    const badPath =
      operation.validate('path', params) ??
      Object.entries(params)
        .filter(([, v]) => UNSTORABLE.test(v))
        .map(([name]) => ({ message: `\`${name}\` cannot hold that text.`, param: name }))[0];
    if (badPath) return new Failure(HttpError.RouteNotFound, `Nothing exists at this path. ${badPath.message}`, { param: badPath.param });
    const query = declaredQuery(req.url ?? '', operation);
    const unstorable = Object.entries(query).find(([, value]) => typeof value === 'string' && UNSTORABLE.test(value));
    if (unstorable)
      return new Failure(HttpError.InvalidRequest, `The parameter \`${unstorable[0]}\` contains a NUL character or an unpaired surrogate.`, {
        param: unstorable[0],
      });
    const invalid = operation.validate('query', query) ?? operation.validate('header', req.headers);
    if (invalid) return new Failure(HttpError.InvalidRequest, invalid.message, { param: invalid.param });
    const body = await readBody(req, operation, options.bodyLimitBytes, options.bodyIdleTimeoutMs);
    if (body instanceof Failure) return body;
    const model = (body.value as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string') exchange.model = model;
    if (body.form === 'none' && operation.bodyRequired) return new Failure(HttpError.InvalidRequest, 'A request body is required.');
    if (body.form !== 'none') {
      const problem = operation.passthrough
        ? body.value && typeof body.value === 'object' && !Array.isArray(body.value)
          ? null
          : { message: 'The body must be a JSON object.', param: null }
        : operation.validate(body.form, body.value);
      if (problem) return new Failure(HttpError.InvalidRequest, problem.message, { param: problem.param });
    }

    const handler = surface.handlers[operation.operationId];
    if (!handler) return new Failure(HttpError.NotImplemented, `${operation.operationId} is not implemented on this gateway.`);
    const sink = responseSink(res, (chunk) => {
      exchange.firstByteAt ??= process.hrtime.bigint();
      exchange.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    });
    return handler(new Context(logger, operation.operationId, exchange.requestId, caller, params, query, req.headers, body.value, body.raw, services, sink));
  }
}

function declaredQuery(url: string, operation: SpecOperation): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  const mark = url.indexOf('?');
  if (mark === -1 || operation.declaredQuery.size === 0) return query;
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) {
    if (operation.declaredQuery.has(name) && !(name in query)) query[name] = value;
  }
  return query;
}

/** A handler's request context; the request's child logger is made on first use (most never log). */
class Context implements RequestContext {
  private child: Logger | undefined;
  constructor(
    private readonly base: Logger,
    readonly operationId: string,
    readonly requestId: string,
    readonly caller: Caller | null,
    readonly params: Record<string, string>,
    readonly query: Record<string, unknown>,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly body: unknown,
    readonly rawBody: Buffer,
    readonly services: Services,
    readonly sink: Sink,
  ) {}

  get logger(): Logger {
    return (this.child ??= this.base.child({ request_id: this.requestId }));
  }
}
