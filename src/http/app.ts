import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { randomBase62 } from '../customers/ids.ts';
import { adminTokenMatches, authPolicy, authenticateCustomer, type AuthPolicy } from './auth.ts';
import { HANDLED, type Handler, type JsonReply } from './handler.ts';
import { problems, renderProblem, type Problem } from './problem.ts';
import type { Operation, RawRequest, SpecApi } from './openapi.ts';

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
    res.setHeader('request-id', requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - (res.locals.startedAt as bigint)) / 1e6;
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          path: req.path,
          operation: res.locals.operationId,
          status: res.statusCode,
          latency_ms: Math.round(ms * 100) / 100,
          customer_id: res.locals.customerId,
          key_id: res.locals.keyId,
        },
        'request',
      );
    });
    next();
  });

  app.use(express.json({ limit: options.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));

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

    const invalid = surface.spec.validateRequest(raw, operation);
    if (invalid) return fail(problems.badRequest(invalid.message, invalid.param));

    const handler = surface.handlers[operation.operationId];
    if (!handler) return fail(problems.notImplemented(operation.operationId));
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const reply = await handler(
      {
        operationId: operation.operationId,
        requestId,
        logger: logger.child({ request_id: requestId }),
        caller,
        params: surface.spec.parseParams(raw, operation),
        query: raw.query,
        headers: req.headers,
        body: req.body,
        services,
        signal: abort.signal,
      },
      res,
    );
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
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(reply.body));
}

export function sendProblem(res: Response, path: string, requestId: string, problem: Problem): void {
  sendJson(res, { status: problem.status, body: renderProblem(problem, path, requestId) });
}
