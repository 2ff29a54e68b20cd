// A TCP proxy the test can cut, stall and restore: a database outage as the gateway sees it
// without stopping the server other tests use. A cut resets connections and refuses new ones (a
// server that went away); a stall lets no byte through either way while every connection stays
// open (a frozen server, a network black hole).
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Resets every open connection and refuses new ones until restore(). */
  cut(): void;
  /** Holds every byte in both directions, on open and new connections, until restore(). */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  flow(): void;
  halt(): void;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'cut' | 'stalled' = 'open';
  const sockets = new Set<net.Socket>();
  const links = new Set<Link>();
  const server = net.createServer((client) => {
    if (mode === 'cut') return client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const link: Link = {
      flow() {
        client.pipe(upstream);
        upstream.pipe(client);
      },
      halt() {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      },
    };
    links.add(link);
    client.on('close', () => {
      links.delete(link);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    if (mode === 'open') link.flow();
    else link.halt();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      mode = 'cut';
      for (const socket of sockets) socket.destroy();
    },
    stall() {
      mode = 'stalled';
      for (const link of links) link.halt();
    },
    restore() {
      if (mode === 'stalled') for (const link of links) link.flow();
      mode = 'open';
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
