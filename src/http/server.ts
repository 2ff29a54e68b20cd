// The listening socket: counts open requests for the drain, asks clients to reconnect elsewhere
// once draining, answers malformed HTTP itself, bounds what a connection may cost before it has
// sent a request (docs/operations.md, "Connections"), and never times out a long response.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';
import type { ConnectionMetrics } from '../metrics/hooks.ts';
import { listen } from '../shared/listen.ts';
import { answerClientError, trackAnswered, trackRequest } from './client-error.ts';
import { servePlain, type UpgradeHandler } from './upgrade.ts';

export interface HttpServer {
  url: string;
  /** Requests whose response has not closed yet. */
  inFlight(): number;
  /** Stops listening and closes every connection (after the drain). */
  close(): Promise<void>;
}

/** What a connection may cost; HTTP_HEADERS_TIMEOUT_MS and its neighbours in src/config/env.ts. */
export interface ConnectionLimits {
  /** A request head must be complete this long after its first byte (or the connection's opening, when none came). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /**
   * A request answered before its whole body came (a 401 does not read it) has this long after
   * the answer for the rest to arrive, to be discarded; then its connection is closed. The body
   * reader bounds the bodies it reads itself (HTTP_BODY_IDLE_TIMEOUT_MS, the same value).
   */
  bodyIdleTimeoutMs: number;
  /** Connections past this many are closed as soon as they are accepted. */
  maxConnections: number;
}

const OPEN_REQUESTS = Symbol('openRequests');
type Counted = Duplex & { [OPEN_REQUESTS]?: number };

export async function startHttpServer(
  handler: http.RequestListener,
  options: {
    host: string;
    port: number;
    logger: Logger;
    draining: () => boolean;
    limits: ConnectionLimits;
    metrics?: ConnectionMetrics;
    /** The classes requests and responses are made with (src/http/app.ts: born with Express's prototypes). */
    classes?: Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'>;
    /** The upgrades the app takes over (WebSockets); any other request with `Upgrade` is served as plain HTTP. */
    upgrade?: UpgradeHandler;
  },
): Promise<HttpServer> {
  const { limits, metrics } = options;
  let inFlight = 0;
  /**
   * Counts a request until its response closes, or its connection does: a pipelined request
   * queued behind a response sent with `connection: close` never gets a 'close' of its own. The
   * connection's listener (one per connection, set in 'connection') ends what is still counted.
   */
  const count = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const socket = req.socket as Counted;
    inFlight++;
    socket[OPEN_REQUESTS] = (socket[OPEN_REQUESTS] ?? 0) + 1;
    const n = trackRequest(socket, req.url);
    res.once('close', () => {
      // Node discards the rest of an unread body before the next request, with no clock of its
      // own: a client trickling it would hold the connection for ever.
      if (!req.complete) setTimeout(() => req.complete || socket.destroy(), limits.bodyIdleTimeoutMs).unref();
      trackAnswered(socket, n);
      if (socket[OPEN_REQUESTS]! > 0) {
        socket[OPEN_REQUESTS]!--;
        inFlight--;
      }
    });
  };
  // Host is checked here rather than by Node, whose refusal is a bare 400 with no body.
  // requestTimeout stays off: Node counts it until the whole request has arrived, so it would cut
  // a slow upload that still moves, and its 408 would race the route's own answer; a stalled body
  // is bounded by the body reader instead (HTTP_BODY_IDLE_TIMEOUT_MS), and responses never are.
  // headersTimeout also covers a connection that sends nothing: Node starts its clock at accept.
  // Node checks it on a timer (30 s by default); checking often keeps the bound close, and costs
  // little: only connections in the middle of a request head or body are looked at.
  // Host (and an Expect other than 100-continue) is checked by the app (src/http/steps/unroutable.ts)
  // rather than by Node, whose refusals are a bare 400 or 417 with no body.
  const serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    count(req, res);
    if (options.draining()) res.setHeader('connection', 'close'); // clients reconnect to another replica
    handler(req, res);
  };
  const server = http.createServer(
    {
      requireHostHeader: false,
      requestTimeout: 0,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
      ...options.classes,
    },
    serve,
  );
  // Past the cap, Node closes a connection at accept, before reading or writing a byte: the
  // cheapest refusal under a flood, and clients (both SDKs) retry a closed connection.
  server.maxConnections = limits.maxConnections;
  server.on('drop', () => metrics?.connectionRefused());
  server.on('connection', (socket: Counted) => {
    if (servePlain.served(socket)) return; // an upgrade served as plain HTTP comes back here: counted once
    metrics?.connectionOpened();
    socket.once('close', () => {
      metrics?.connectionClosed();
      inFlight -= socket[OPEN_REQUESTS] ?? 0;
      socket[OPEN_REQUESTS] = 0;
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics?.headersTimedOut();
    answerClientError(error, socket, options.logger);
  });
  server.on('checkExpectation', serve);
  // With an 'upgrade' listener Node hands every request carrying `Upgrade` here, whatever its path.
  // The app's own (a WebSocket of GET /v1/responses) is answered on its socket, counted for the
  // drain until the socket closes; any other (h2c from curl --http2, a WebSocket elsewhere) is
  // served as plain HTTP, as Node does without the listener (RFC 9110 lets a server ignore Upgrade).
  server.on('upgrade', (req: http.IncomingMessage, socket: Counted, head: Buffer) => {
    if (!options.upgrade?.accepts(req)) return servePlain(server, req, socket, head);
    const Response = options.classes?.ServerResponse ?? http.ServerResponse;
    const res = new Response(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.once('finish', () => socket.end()); // answered in HTTP (a refusal): nothing more on this connection
    count(req, res);
    options.upgrade.serve(req, res, socket, head);
  });
  const url = await listen(server, options.port, options.host);
  return {
    url,
    inFlight: () => inFlight,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
