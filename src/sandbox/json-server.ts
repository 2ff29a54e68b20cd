// A small JSON HTTP server for the simulated task upstreams.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type JsonRoute = (request: JsonRequest) => { status: number; body: unknown };

export async function serveJson(route: JsonRoute): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://sim');
      const answer = route({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body });
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
