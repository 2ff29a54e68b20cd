// The listening socket: counts open requests for the drain, asks clients to reconnect elsewhere
// once draining, answers malformed HTTP itself, bounds what a connection may cost before it has
// sent a request (docs/operations.md, "Connections"), and never times out a long response.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';
import type { ConnectionMetrics } from '../metrics/hooks.ts';
import { closeIfBodyStalls, createBoundedServer, type ConnectionLimits } from '../shared/bounded-server.ts';
import { listen } from '../shared/listen.ts';
import { answerClientError, trackAnswered, trackRequest } from './client-error.ts';
import { servePlain, type UpgradeHandler } from './upgrade.ts';

export type { ConnectionLimits };

export interface HttpServer {
  url: string;
  /** Requests whose response has not closed yet. */
  inFlight(): number;
  /** Stops listening and closes every connection (after the drain). */
  close(): Promise<void>;
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
      closeIfBodyStalls(req, socket, limits);
      trackAnswered(socket, n);
      if (socket[OPEN_REQUESTS]! > 0) {
        socket[OPEN_REQUESTS]!--;
        inFlight--;
      }
    });
  };
  // Host (and an Expect other than 100-continue) is checked by the app (src/http/steps/unroutable.ts)
  // rather than by Node, whose refusals are a bare 400 or 417 with no body.
  const serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    count(req, res);
    if (options.draining()) res.setHeader('connection', 'close'); // clients reconnect to another replica
    handler(req, res);
  };
  const server = createBoundedServer(limits, { requireHostHeader: false, ...options.classes }, serve);
  // Clients (both SDKs) retry a connection closed at accept past the cap.
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
