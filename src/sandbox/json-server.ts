// A small HTTP server for the simulated task upstreams: JSON in, JSON or bytes out. It keeps the
// last exchanges so tests can check every request it got and every answer it gave against the
// upstream contracts (openapi/upstream).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface JsonRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface JsonAnswer {
  status: number;
  /** JSON, or bytes sent as they are (a Buffer, or a stream with its content-length; give the content-type in `headers`). */
  body: unknown;
  headers?: Record<string, string>;
  /** A deliberately broken answer (a `[[sim status=paused]]` directive): contract checks skip it. */
  offContract?: boolean;
}

/** A route may answer later (a simulator that verifies a signature with an async library). */
export type JsonRoute = (request: JsonRequest) => JsonAnswer | Promise<JsonAnswer>;

/** One request and its answer, as the contracts see them (bytes as a placeholder). */
export interface Exchange {
  method: string;
  /** The path and query string, relative to the simulator's base URL. */
  path: string;
  requestBody: Record<string, unknown> | undefined;
  /** The request body's media type (application/json unless the client said otherwise). */
  requestContentType: string;
  status: number;
  contentType: string;
  body: unknown;
  /** False while, or if never, the whole answer was written (a streamed file whose reader left). */
  finished: boolean;
  /** The connection closed (finished or not). */
  closed: boolean;
  /** Bytes of a streamed answer produced so far (what the reader's back-pressure let through). */
  sent: number;
  /** Whether the request carried credentials, and its Range. */
  authorized: boolean;
  range: string | undefined;
  offContract: boolean;
}

export interface JsonServer {
  baseUrl: string;
  /** The last exchanges (at most 500), oldest first. */
  exchanges: Exchange[];
  close(): Promise<void>;
}

const KEPT_EXCHANGES = 500;

/** `basePath`: the part of the base URL the provider's paths start after (`/v1` for OpenAI). */
export async function serveJson(route: JsonRoute, options: { basePath?: string } = {}): Promise<JsonServer> {
  const basePath = options.basePath ?? '';
  const exchanges: Exchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: Record<string, unknown> = {};
      const requestContentType = (req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        // Form bodies (an OAuth token request) arrive as their fields.
        if (requestContentType === 'application/x-www-form-urlencoded') body = Object.fromEntries(new URLSearchParams(text));
        else body = chunks.length ? JSON.parse(text) : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://sim');
      const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : `/..${url.pathname}`;
      const answer = await route({ method: req.method ?? 'GET', path, query: url.searchParams, headers: req.headers, body });
      const streamed = answer.body instanceof Readable;
      const bytes = streamed || Buffer.isBuffer(answer.body);
      const contentType = answer.headers?.['content-type'] ?? 'application/json';
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        path: path + url.search,
        requestBody: chunks.length ? body : undefined,
        requestContentType,
        status: answer.status,
        contentType,
        body: bytes ? '[bytes]' : answer.body,
        finished: false,
        closed: false,
        sent: 0,
        authorized: req.headers.authorization !== undefined,
        range: req.headers.range,
        offContract: answer.offContract ?? false,
      };
      exchanges.push(exchange);
      if (exchanges.length > KEPT_EXCHANGES) exchanges.shift();
      res.once('finish', () => (exchange.finished = true));
      res.once('close', () => (exchange.closed = true));
      if (answer.body instanceof Readable) {
        res.writeHead(answer.status, { 'content-type': contentType, ...answer.headers });
        if (req.method === 'HEAD') return void (answer.body.destroy(), res.end());
        answer.body.on('data', (chunk: Buffer) => (exchange.sent += chunk.length));
        answer.body.on('error', () => res.destroy()); // a file that breaks off: the connection drops
        answer.body.pipe(res);
        res.once('close', () => (answer.body as Readable).destroy()); // the reader left: stop producing
        return;
      }
      const payload = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(JSON.stringify(answer.body));
      res.writeHead(answer.status, { 'content-type': contentType, 'content-length': payload.length, ...answer.headers });
      res.end(req.method === 'HEAD' ? undefined : payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
