// The METRICS_PORT listener: GET /metrics and nothing else, without authentication, for a
// Prometheus that reaches the gateway over a private network. On the main port the same metrics
// need the admin token (metrics_get in openapi/admin.yaml).
import http from 'node:http';
import { listen } from '../shared/listen.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from './registry.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, options: { host: string; port: number; logger: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
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
