// Requests that carry `Upgrade`. Node hands all of them to the server's 'upgrade' listener with the
// HTTP parser already detached from the socket, once one is listening (the WebSocket of GET
// /v1/responses, src/http/websocket/). The app says which it takes over; every other one is served
// as the plain HTTP request it also is: its head is written back, without `Upgrade`, in front of
// the bytes that followed it, and the socket is handed to the server again as a new connection,
// so its body, keep-alive and pipelined requests work as without the listener.
import type http from 'node:http';
import type { Duplex } from 'node:stream';

export interface UpgradeHandler {
  /** Whether the app takes this upgrade over; false: it is served as plain HTTP. */
  accepts(req: http.IncomingMessage): boolean;
  /**
   * Serves a taken-over upgrade: an HTTP answer through `res` (a refusal, which ends the
   * connection), or the socket taken for the new protocol.
   */
  serve(req: http.IncomingMessage, res: http.ServerResponse, socket: Duplex, head: Buffer): void;
}

const SERVED_PLAIN = Symbol('servedPlain');
type Marked = Duplex & { [SERVED_PLAIN]?: true };

/**
 * Serves an upgrade request nobody takes over as plain HTTP, on the same socket. A request
 * pipelined behind one still being answered waits for that answer: the socket's next parser must
 * not start while the previous one's response holds it (Node's `_httpMessage`).
 */
export function servePlain(server: http.Server, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
  const answering = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (answering && !answering.writableFinished) return void answering.once('finish', () => setImmediate(() => servePlain(server, req, socket, head)));
  if (socket.destroyed) return;
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (name.toLowerCase() !== 'upgrade') lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  (socket as Marked)[SERVED_PLAIN] = true;
  server.emit('connection', socket);
}

/** True for a socket servePlain handed back (the server's 'connection' listeners count it once). */
servePlain.served = (socket: Duplex): boolean => (socket as Marked)[SERVED_PLAIN] === true;
