// Raw TCP clients for the connection bounds of the gateway's listeners (the API port and the
// metrics port): a client that keeps its own side open whatever the server does, as a hostile
// one would, so that the server's closing is what a test sees.
import net from 'node:net';

/** A raw client connection; the server ending it is `ended`. */
export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  text(): string;
  /** Resolves when the server has ended the connection (or it broke), with what it sent. */
  ended: Promise<string>;
}

export function connect(url: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ port: Number(new URL(url).port), host: '127.0.0.1', allowHalfOpen: true });
    const text = () => Buffer.concat(chunks).toString('latin1');
    const ended = new Promise<string>((done) => {
      socket.on('end', () => done(text()));
      socket.on('close', () => done(text()));
      socket.on('error', () => done(text()));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('connect', () => resolve({ socket, text, ended }));
    socket.once('error', reject);
  });
}

/** Polls `read` until `done` holds, or fails after `ms`. */
export async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
