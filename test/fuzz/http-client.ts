// A deliberately naive HTTP client: the path goes on the wire as written (malformed
// percent-encoding included), headers as given (a Content-Length that lies included), one fresh
// connection per request so a lie cannot poison the next one.
import http from 'node:http';
import net from 'node:net';

export interface FuzzRequest {
  method: string;
  /** Path and query string, exactly as sent. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** No answer arrived in time (the socket was then destroyed). */
  timedOut: boolean;
}

export function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // Node frames a GET or DELETE body only when told its length: say it, unless the request lies about it.
    const length = request.body === undefined || 'content-length' in request.headers ? {} : { 'content-length': String(Buffer.byteLength(request.body)) };
    const headers = { ...request.headers, ...length };
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent: false, setHost: true },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), timedOut: false });
        });
        res.on('error', (error) => (clearTimeout(timer), reject(error)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ status: 0, headers: {}, text: '', timedOut: true });
    }, timeoutMs);
    // The server may answer and close before reading a lying or oversized body: not a client error.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
      clearTimeout(timer);
      reject(error);
    });
    if (request.body !== undefined) req.end(request.body);
    else req.end();
  });
}

/** A request as a line a developer can paste into a bug report (bodies cut). */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body === undefined ? '' : Buffer.isBuffer(request.body) ? request.body.toString('latin1') : request.body;
  const shownBody = body.length > 300 ? `${body.slice(0, 300)}... (${body.length} bytes)` : body;
  const headers = Object.entries(request.headers).map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 80)}... (${v.length} chars)` : v}`);
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}... (${request.path.length} chars)` : request.path;
  return `${request.method} ${path}\n  ${headers.join('\n  ')}${shownBody ? `\n  body: ${JSON.stringify(shownBody)}` : ''}`;
}

/** Bytes straight onto a socket (for what no HTTP client will send); the answer read until close. */
export function sendRaw(baseUrl: string, bytes: string | Buffer, timeoutMs: number): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status, headers, text: Buffer.from(rest.join('\r\n\r\n'), 'latin1').toString('utf8'), timedOut: status === 0 });
    });
  });
}
