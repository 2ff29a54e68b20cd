// The METRICS_PORT listener: GET /metrics and nothing else, without authentication, for a
// Prometheus that reaches the gateway over a private network. On the main port the same metrics
// need the admin token (metrics_get in openapi/admin.yaml). Its connections have the API port's
// bounds (src/shared/bounded-server.ts): idle, silent, slow and surplus connections are closed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { closeIfBodyStalls, createBoundedServer, type ConnectionLimits } from '../shared/bounded-server.ts';
import { listen } from '../shared/listen.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from './registry.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** What Node itself answers a request its parser refused (the API port answers in JSON instead). */
const refusalStatus = (code: string | undefined): number => (code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400);

export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; logger: Logger; limits: ConnectionLimits },
): Promise<MetricsServer> {
  const server = createBoundedServer(options.limits, {}, (req, res) => {
    res.once('close', () => closeIfBodyStalls(req, req.socket, options.limits));
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served on this port.\n');
      return;
    }
    metrics.render().then(
      (text) =>
        res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text) }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics: rendering failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // As on the API port, a connection that sent nothing is closed without an answer: an
    // unsolicited 408 could be read as the answer to a request sent later.
    if (socket.writable && socket.bytesRead > 0 && socket.bytesWritten === 0) {
      const status = refusalStatus(error.code);
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    }
    socket.destroy();
  });
  const url = `${await listen(server, options.port, options.host)}/metrics`;
  options.logger.info({ url }, 'metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
