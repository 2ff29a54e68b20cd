// A forward proxy as operators run one (squid, an egress gateway): absolute-form requests for
// http:// URLs, CONNECT tunnels for https:// ones, and optionally Basic proxy authentication
// (407 without it). It records what it was asked to reach, so a test can see which calls went
// through it and which did not.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface ForwardProxy {
  url: string;
  port: number;
  /** `POST http://127.0.0.1:1234/v1/messages`, `CONNECT host:443`, in arrival order. */
  seen: string[];
  /** Proxy-Authorization headers received (to check credentials reach the proxy, and only it). */
  authorizations: string[];
  /** Bytes that came back through the tunnels, by target `host:port`. */
  tunnelled: Map<string, number>;
  close(): Promise<void>;
}

export async function startForwardProxy(options: { credentials?: { user: string; password: string } } = {}): Promise<ForwardProxy> {
  const seen: string[] = [];
  const authorizations: string[] = [];
  const tunnelled = new Map<string, number>();
  const expected = options.credentials && `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;
  const admitted = (req: http.IncomingMessage) => {
    const given = req.headers['proxy-authorization'];
    if (given) authorizations.push(given);
    return !expected || given === expected;
  };

  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!admitted(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    if (!admitted(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), host!.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.on('data', (chunk: Buffer) => tunnelled.set(req.url ?? '', (tunnelled.get(req.url ?? '') ?? 0) + chunk.length));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    authorizations,
    tunnelled,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
