// Requests Node's HTTP parser refuses before any route sees them (a Content-Length that is not a
// number or appears twice, Content-Length with Transfer-Encoding, NUL in a header, headers over the
// size limit, a head not complete within HTTP_HEADERS_TIMEOUT_MS): answered like every other
// error, a JSON body in the endpoint's error shape and a request-id, instead of Node's bare
// "400 Bad Request". The connection is closed after it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Failure } from '../domain/failure.ts';
import type { Logger } from '../logger.ts';
import { newRequestId } from '../shared/ids.ts';
import { HttpError, renderFailure, shapeOfPath } from './errors.ts';

/** The request target of the packet being parsed, when its request line is readable. */
function targetOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/';
  const line = /^[A-Z]+ (\/[^ \r\n]*) HTTP\/1\.[01]\r?\n/.exec(rawPacket.subarray(0, 2048).toString('latin1'));
  return line ? line[1]! : '/';
}

const CURRENT_URL = Symbol('currentUrl');
const STARTED = Symbol('requestsStarted');
const ANSWERED = Symbol('requestsAnswered');
type Tracked = Duplex & { [CURRENT_URL]?: string; [STARTED]?: number; [ANSWERED]?: number };

/**
 * Notes the request a connection is on now and returns its number on the connection (a few
 * stores per request; read only on a parse error). Responses go out in request order, so the
 * latest request is unanswered until the response of that number closes, even when an earlier
 * pipelined one closes after it arrived.
 */
export function trackRequest(socket: Duplex, url: string | undefined): number {
  const tracked = socket as Tracked;
  tracked[CURRENT_URL] = url ?? '/';
  return (tracked[STARTED] = (tracked[STARTED] ?? 0) + 1);
}

/** Notes that request number `n` of the connection was answered (its response closed). */
export function trackAnswered(socket: Duplex, n: number): void {
  const tracked = socket as Tracked;
  if ((tracked[ANSWERED] ?? 0) < n) tracked[ANSWERED] = n;
}

/**
 * How long a refused connection stays half-open after its answer, for the client to read it:
 * closing at once while its bytes are still arriving would send a reset that can wipe the answer
 * out of the client's buffer. A client that never closes its side does not hold the socket longer.
 */
const LINGER_MS = 2_000;

export function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex, logger: Logger): void {
  // The client is gone, or a response has begun on this socket: nothing can be answered (as Node does).
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  // The client ended its side in the middle of a request's body: that request is the one at fault.
  // Answered already (a 401 before the body was read): a second response would be unsolicited.
  const cutShort = error.code === 'HPE_INVALID_EOF_STATE' ? (socket as Tracked)[CURRENT_URL] : undefined;
  const answered = ((socket as Tracked)[ANSWERED] ?? 0) >= ((socket as Tracked)[STARTED] ?? 0);
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent || (cutShort !== undefined && answered)) {
    socket.destroy();
    return;
  }
  // A head that did not complete in time. Nothing came at all: there is no request to answer (a
  // port scan, a flood, a balancer's spare connection), and an unsolicited 408 could be read as
  // the answer to a request sent later. A request on this connection still unanswered: a 408
  // cannot go out before its answer. The request line of a partial head stays inside Node's
  // parser, so the answer takes the default (OpenAI) shape: both SDKs retry a 408 either way.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && ((socket as Socket).bytesRead === 0 || !answered)) {
    socket.destroy();
    return;
  }
  const requestId = newRequestId();
  const code =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? HttpError.HeadersTooLarge
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? HttpError.RequestTimeout
        : HttpError.MalformedHttp;
  const reply = renderFailure(new Failure(code, ''), shapeOfPath((cutShort ?? targetOf(error.rawPacket)).split('?')[0]!), requestId);
  const text = JSON.stringify(reply.body);
  logger.info({ request_id: requestId, status: reply.status, parse_error: error.code }, 'malformed request refused');
  socket.end(
    `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\nconnection: close\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nrequest-id: ${requestId}\r\nx-request-id: ${requestId}\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
