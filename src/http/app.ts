import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { randomBase62 } from '../customers/ids.ts';
import { multipartBody } from './multipart.ts';
import { adminTokenMatches, authPolicy, authenticateCustomer, type AuthPolicy } from './auth.ts';
import { HANDLED, type Handler, type JsonReply } from './handler.ts';
import { problems, renderProblem, type Problem } from './problem.ts';
import type { Operation, RawRequest, SpecApi } from './openapi.ts';
import type { RequestLogEntry } from '../logs/request-logs.ts';

/** What a flow (messages, videos) learned about a request, for its request log row. */
export type RequestOutcome = Partial<
  Pick<RequestLogEntry, 'provider' | 'ttfb_ms' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'video_seconds' | 'video_tier' | 'cost' | 'usage_estimated' | 'stream' | 'upstream_request_id'>
>;

export interface Surface {
  spec: SpecApi;
  handlers: Record<string, Handler>;
  rootSecurity?: Array<Record<string, unknown>>;
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
  /** Check every response against the spec; a mismatch becomes a 502 and an error log. */
  validateResponses: boolean;
}

const newRequestId = (): string => `req_${randomBase62(24)}`;

/** Liveness and readiness probes would drown the request log. */
const UNLOGGED = new Set(['health_get', 'readiness_get']);

function requestLogEntry(requestId: string, res: Response, latencyMs: number): RequestLogEntry {
  const locals = res.locals as { operationId?: string; customerId?: string; keyId?: string; model?: string; errorType?: string; outcome?: RequestOutcome };
  return {
    request_id: requestId,
    customer_id: locals.customerId ?? null,
    key_id: locals.keyId ?? null,
    endpoint: locals.operationId ?? 'unmatched',
    model: locals.model ?? null,
    provider: null,
    ttfb_ms: null,
    input_tokens: null,
    output_tokens: null,
    cache_read_tokens: null,
    cache_write_tokens: null,
    video_seconds: null,
    video_tier: null,
    cost: null,
    usage_estimated: false,
    stream: false,
    upstream_request_id: null,
    ...locals.outcome,
    status: res.statusCode,
    error_type: locals.errorType ?? null,
    latency_ms: latencyMs,
    created_at: new Date(),
  };
}

export function createApp(options: AppOptions): express.Express {
  const { logger, services } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
    const requestId = newRequestId();
    res.locals.requestId = requestId;
    res.locals.startedAt = process.hrtime.bigint();
    res.locals.surface = req.path === '/admin' || req.path.startsWith('/admin/') ? 'admin' : 'public';
    res.setHeader('request-id', requestId);
    // 'close' fires for finished responses and for clients that went away mid-stream alike. The
    // log row waits for the handler too: a stream settles after its last byte is sent.
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - (res.locals.startedAt as bigint)) / 1e6;
      const status = res.writableFinished ? res.statusCode : res.headersSent ? res.statusCode : 499;
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          path: req.path,
          operation: res.locals.operationId,
          status,
          latency_ms: Math.round(ms * 100) / 100,
          customer_id: res.locals.customerId,
          key_id: res.locals.keyId,
          client_gone: !res.writableFinished || undefined,
        },
        'request',
      );
      if (res.locals.surface === 'public' && !UNLOGGED.has(res.locals.operationId as string)) {
        const handled = (res.locals.handled as Promise<unknown> | undefined) ?? Promise.resolve();
        void handled.catch(() => undefined).then(() => services.requestLogs.write(requestLogEntry(requestId, res, Math.round(ms))));
      }
    });
    next();
  });

  app.use(express.json({ limit: options.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  app.use(multipartBody(options.bodyLimitBytes));

  const policies = new WeakMap<Operation, AuthPolicy>();
  const dispatch = (surface: Surface) => async (req: Request, res: Response) => {
    const requestId = res.locals.requestId as string;
    let operation: Operation | undefined;
    // Every reply, errors included, goes through here so tests can hold it against the contract.
    const send = (reply: JsonReply): void => {
      const mismatch = options.validateResponses && operation ? surface.spec.validateResponse(reply.body, operation, reply.status) : null;
      if (mismatch) {
        logger.error({ request_id: requestId, operation: operation?.operationId, status: reply.status, mismatch }, 'response does not match the spec');
        const problem: Problem = { status: 502, type: 'api_error', message: `Response failed contract validation: ${mismatch}`, code: 'response_validation_failed' };
        return sendJson(res, { status: 502, body: renderProblem(problem, req.path, requestId) });
      }
      sendJson(res, reply);
    };
    const fail = (problem: Problem) => send({ status: problem.status, body: renderProblem(problem, req.path, requestId) });
    const raw: RawRequest = { method: req.method.toLowerCase(), path: req.path, headers: req.headers, query: req.query as Record<string, unknown>, body: req.body };
    operation = surface.spec.match(raw);
    if (!operation?.operationId) return fail(problems.notFound(`No route for ${req.method} ${req.path}.`, 'route_not_found'));
    res.locals.operationId = operation.operationId;

    // Clients add query parameters the contract does not know (the Anthropic SDK's `?beta=true`).
    const declared = surface.spec.declaredQuery(operation);
    raw.query = Object.fromEntries(Object.entries(raw.query).filter(([name]) => declared.has(name)));

    let caller = null;
    let policy = policies.get(operation);
    if (!policy) policies.set(operation, (policy = authPolicy(operation, surface.rootSecurity)));
    if (surface.admin) {
      if (policy.schemes.size > 0 && !adminTokenMatches(req.headers, options.adminToken)) {
        return fail(problems.unauthorized('Invalid or missing admin token.'));
      }
    } else if (policy.schemes.size > 0) {
      const auth = await authenticateCustomer(req.headers, policy, services.customers);
      if (auth.kind === 'rejected') return fail(problems.unauthorized());
      if (auth.kind === 'caller') {
        caller = auth.caller;
        res.locals.customerId = caller.customerId;
        res.locals.keyId = caller.keyId;
      }
    }

    const bodyModel = (req.body as { model?: unknown } | undefined)?.model;
    if (typeof bodyModel === 'string') res.locals.model = bodyModel.slice(0, 200);
    const invalid = surface.spec.validateRequest(raw, operation);
    if (invalid) return fail(problems.badRequest(invalid.message, invalid.param));

    const handler = surface.handlers[operation.operationId];
    if (!handler) return fail(problems.notImplemented(operation.operationId));
    const params = surface.spec.parseParams(raw, operation);
    if (params.model_id) res.locals.model = params.model_id;
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(); // the client left before the end
    });
    const pending = handler(
      {
        operationId: operation.operationId,
        requestId,
        logger: logger.child({ request_id: requestId }),
        caller,
        params,
        query: raw.query,
        headers: req.headers,
        body: req.body,
        services,
        signal: abort.signal,
      },
      res,
    );
    res.locals.handled = pending;
    const reply = await pending;
    if (reply !== HANDLED) send(reply);
  };

  const guard = (surface: Surface) => (req: Request, res: Response, next: NextFunction) => {
    dispatch(surface)(req, res).catch(next);
  };
  app.use('/admin', (req, res, next) => {
    req.url = req.originalUrl; // the admin spec's paths start with /admin
    guard(options.adminSurface)(req, res, next);
  });
  app.use(guard(options.publicSurface));

  // Body-parser failures and bugs end here; neither leaks internals to the client.
  app.use((error: Error & { type?: string; status?: number }, req: Request, res: Response, _next: NextFunction) => {
    const requestId = res.locals.requestId as string;
    if (error.type === 'entity.too.large') return sendProblem(res, req.path, requestId, problems.payloadTooLarge(options.bodyLimitBytes));
    if (error.type === 'entity.parse.failed') {
      return sendProblem(res, req.path, requestId, problems.badRequest('The body is not valid JSON.', null, 'invalid_json'));
    }
    if (error.status && error.status >= 400 && error.status < 500) {
      return sendProblem(res, req.path, requestId, problems.badRequest(error.message));
    }
    logger.error({ request_id: requestId, err: error }, 'unhandled error');
    if (res.headersSent) return res.destroy();
    sendProblem(res, req.path, requestId, problems.internal());
  });
  return app;
}

function sendJson(res: Response, reply: JsonReply): void {
  if (reply.status >= 400) res.locals.errorType = errorTypeOf(reply.body);
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(reply.body));
}

function errorTypeOf(body: unknown): string | undefined {
  const error = (body as { error?: { type?: unknown } } | undefined)?.error;
  return typeof error?.type === 'string' ? error.type : undefined;
}

export function sendProblem(res: Response, path: string, requestId: string, problem: Problem): void {
  sendJson(res, { status: problem.status, body: renderProblem(problem, path, requestId) });
}
