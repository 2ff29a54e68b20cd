// The Responses WebSocket's handshake (GET /v1/responses with `Upgrade: websocket`). The request
// runs through the app's steps like any other (request id, route, the key checked by the
// authenticate step, the handler) on an HTTP answer bound to its raw socket, so a refused key gets
// its 401 in the OpenAI shape and never a 101; the handler then accepts, and only then does the
// `ws` package write the 101 and take the socket. Before the key is known nothing is read but the
// request head Node parsed (bounded by its header limits), the handshake has a deadline, and the
// number of open connections is capped (WEBSOCKET_MAX_CONNECTIONS).
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Caller } from '../../customers/service.ts';
import { Failure } from '../../domain/failure.ts';
import type { Logger } from '../../logger.ts';
import { HttpError } from '../errors.ts';
import type { UpgradeHandler } from '../upgrade.ts';
import { serveConnection, type ConnectionDeps, type Connection } from './connection.ts';

/** What the handler of GET /v1/responses may do with a WebSocket upgrade (RequestContext.upgrade). */
export interface WebSocketUpgrade {
  /** Completes the handshake for this caller and serves the connection; the refusal otherwise (400, 503). */
  accept(caller: Caller, requestId: string): Failure | undefined;
}

export interface ResponsesSockets extends UpgradeHandler {
  /** The upgrade of a request the app is serving, if it is one. */
  upgradeOf(req: http.IncomingMessage): WebSocketUpgrade | undefined;
  /** Refuses new connections and closes the open ones after their turn in flight (shutdown). */
  drain(): void;
  /** Open connections. */
  open(): number;
}

export interface SocketOptions extends Omit<ConnectionDeps, 'maxBytes'> {
  /** The largest message taken (BODY_LIMIT_BYTES); a larger one closes the connection with 1009. */
  maxMessageBytes: number;
  maxConnections: number;
  /** The handshake (the key's check included) must complete within this long. */
  handshakeMs: number;
  logger: Logger;
  /** Runs a request through the app (Express). */
  app: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

const KEY = /^[A-Za-z0-9+/]{22}==$/; // 16 bytes in Base64 (RFC 6455 section 4.2.1)

export function createResponsesSockets(options: SocketOptions): ResponsesSockets {
  const pending = new WeakMap<http.IncomingMessage, WebSocketUpgrade>();
  const connections = new Set<Connection>();
  let draining = false;
  // No compression (a small message must not inflate into a large one) and a bounded message size.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: options.maxMessageBytes, clientTracking: false });

  function serve(req: http.IncomingMessage, res: http.ServerResponse, socket: Duplex, head: Buffer): void {
    const deadline = setTimeout(() => socket.destroy(), options.handshakeMs);
    socket.once('close', () => clearTimeout(deadline));
    pending.set(req, {
      accept(caller, requestId) {
        if (draining || connections.size >= options.maxConnections)
          return new Failure(HttpError.WebSocketConnectionsExhausted, '', { headers: { 'retry-after': '1' } });
        const version = req.headers['sec-websocket-version'];
        const key = req.headers['sec-websocket-key'];
        if (version !== '13' || typeof key !== 'string' || !KEY.test(key.trim()))
          return new Failure(HttpError.WebSocketHandshakeInvalid, '', { param: 'Sec-WebSocket-Key' });
        clearTimeout(deadline);
        res.statusCode = 101; // the access line's status: the 101 goes out through ws, not this answer
        const onHeaders = (headers: string[]) => headers.push(`request-id: ${requestId}`, `x-request-id: ${requestId}`);
        wss.once('headers', onHeaders);
        wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
          const connection = serveConnection(ws, { caller, req, requestId }, { ...options, maxBytes: options.maxMessageBytes });
          connections.add(connection);
          void connection.closed.then(() => connections.delete(connection));
          if (draining) connection.drain();
        });
        wss.off('headers', onHeaders); // handleUpgrade writes the 101 synchronously (or refuses): never another request's
        return undefined;
      },
    });
    options.app(req, res);
  }

  return {
    accepts: (req) => req.method === 'GET' && /(^|,)\s*websocket\s*(,|$)/i.test(req.headers.upgrade ?? '') && (req.url ?? '').split('?')[0] === '/v1/responses',
    serve,
    upgradeOf: (req) => pending.get(req),
    drain() {
      draining = true;
      for (const connection of connections) connection.drain();
    },
    open: () => connections.size,
  };
}
