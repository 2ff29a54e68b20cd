// The HTTP application: Express 5, and what happens to a request is the list of steps in
// createApp, in order. Nothing is parsed before the route and the caller are known. Each step is a
// small middleware in src/http/steps/ with its own unit test; a failure leaves a step as
// next(failure) and is answered by the error handler in the endpoint's error shape.
// docs/request-flow.md walks through it; an operator's own middleware goes in with `app.use`.
import http from 'node:http';
import express, { type Express } from 'express';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { RequestMetrics } from '../metrics/hooks.ts';
import type { Services } from '../services.ts';
import { createAccessLog } from './access-log.ts';
import type { Cors } from './cors.ts';
import { authenticate } from './steps/authenticate.ts';
import { serveConsole } from './steps/console.ts';
import { corsHeaders } from './steps/cors.ts';
import { dispatch } from './steps/dispatch.ts';
import { errorHandler } from './steps/error-handler.ts';
import { readRequestBody } from './steps/read-body.ts';
import { requestId } from './steps/request-id.ts';
import { route } from './steps/route.ts';
import type { Surface } from './steps/state.ts';
import { refuseUnroutable } from './steps/unroutable.ts';
import { validateRequest } from './steps/validate.ts';
import { createResponsesSockets, type ResponsesSockets } from './websocket/upgrade.ts';

export type { Surface };

export interface AppOptions {
  publicSurface: Surface;
  adminSurface: Surface;
  services: Services;
  logger: Logger;
  adminToken: string;
  bodyLimitBytes: number;
  /** A request body with no byte for this long is answered 408 (HTTP_BODY_IDLE_TIMEOUT_MS). */
  bodyIdleTimeoutMs?: number;
  /** Check every JSON response against the spec; a mismatch becomes a 502 and an error log. */
  validateResponses: boolean;
  /** Echo and log a well-formed incoming `x-request-id` (set by a trusted proxy) beside the id minted here. */
  trustRequestId?: boolean;
  /** Proxies whose X-Forwarded-For names the client address (TRUST_PROXY; Express's `trust proxy`). */
  trustProxy?: boolean | number | string;
  /** Told about every request at the access-log point. */
  metrics?: RequestMetrics;
  /** Cross-origin access to the public surface; none when CORS is off. */
  cors?: Cors;
  /** The built web console served at /console/ (CONSOLE); undefined: not served. */
  consoleDir?: string;
  /** Responses WebSockets (GET /v1/responses upgraded): how many at once, for how long; the handshake's deadline is the head's. */
  connections?: Pick<Config['connections'], 'maxWebSockets' | 'webSocketMaxAgeMs' | 'headersTimeoutMs'>;
}

export interface App {
  /** The request listener. */
  express: Express;
  /**
   * The request and response classes for `http.createServer`: their instances are born with
   * Express's prototypes, so Express's per-request `setPrototypeOf` changes nothing and every
   * request keeps one shared hidden class (docs/performance.md).
   */
  classes: { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse };
  /** The upgrades it takes over (the Responses WebSocket), for the server; drained at shutdown. */
  sockets: ResponsesSockets;
}

export function createApp(options: AppOptions): App {
  const { logger, services, cors } = options;
  const accessLog = createAccessLog({ logger, requestLogs: services.requestLogs, metrics: options.metrics });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // answers are written whole by the handlers; /v1/models* has its own ETag
  app.set('query parser', false); // the validate step reads the declared query parameters itself
  app.set('trust proxy', options.trustProxy ?? false); // req.ip for the access log

  app.use(requestId({ publicSurface: options.publicSurface, adminSurface: options.adminSurface, accessLog, trustRequestId: options.trustRequestId }));
  app.use(refuseUnroutable()); // 400 without Host, 417 for an Expect other than 100-continue
  if (options.consoleDir) app.use('/console', serveConsole(options.consoleDir)); // static files, not operations
  app.use(corsHeaders(cors));
  app.use(route(cors)); // openapi-backend's router: 404, 405 with Allow, CORS preflights
  app.use(authenticate({ adminToken: options.adminToken, customers: services.customers }));
  app.use(readRequestBody(options.bodyLimitBytes, options.bodyIdleTimeoutMs));
  app.use(validateRequest()); // openapi-backend's validator
  const limits = options.connections ?? { maxWebSockets: 1_000, webSocketMaxAgeMs: 3_600_000, headersTimeoutMs: 30_000 };
  const sockets = createResponsesSockets({
    app,
    services,
    logger,
    accessLog,
    maxConnections: limits.maxWebSockets,
    maxAgeMs: limits.webSocketMaxAgeMs,
    handshakeMs: limits.headersTimeoutMs,
    maxMessageBytes: options.bodyLimitBytes,
  });
  app.use(dispatch({ logger, services, validateResponses: options.validateResponses, upgradeOf: sockets.upgradeOf }));
  app.use(errorHandler(logger));

  return { express: app, classes: bornWithPrototypes(app), sockets };
}

/**
 * `http.createServer` takes the classes it makes requests and responses with (Node's documented
 * `IncomingMessage` and `ServerResponse` options), and Express takes app-specific prototypes in
 * `app.request` and `app.response` ("Overriding the Express API" in its guide). A subclass of each
 * Node class whose prototype inherits from the app's becomes the app's: requests are born with
 * the prototype Express would give them, its `setPrototypeOf` changes nothing, and every request
 * (and response) shares one hidden class. Classes, not functions with Reflect.construct: V8 gives
 * each object made that way a map of its own.
 */
function bornWithPrototypes(app: Express): App['classes'] {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof http.ServerResponse };
}
