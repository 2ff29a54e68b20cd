// The listener's own bookkeeping under HTTP/1.1 pipelining, on a real socket: the count of open
// requests that the graceful drain waits on, and which request a body cut short belongs to.
import net from 'node:net';
import { expect } from 'chai';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { createLogger } from '../../../src/logger.ts';

/** Writes `bytes`, ends the connection's sending side `endAfterMs` later, and returns everything that came back. */
function exchange(url: string, bytes: string, endAfterMs = 0): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => {
      socket.write(bytes);
      setTimeout(() => socket.end(), endAfterMs);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    setTimeout(() => socket.destroy(), 5000);
  });
}

const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('HTTP listener: pipelined requests', () => {
  let server: HttpServer;
  before(async () => {
    // Answers a GET after 30 ms, a POST once its whole body has arrived; refuses a request without
    // Host and closes the connection, as the app does (src/http/steps/unroutable.ts).
    server = await startHttpServer(
      (req, res) => {
        if (req.headers.host === undefined) return void res.writeHead(400, { connection: 'close', 'content-type': 'application/json' }).end('{}');
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        if (req.method === 'POST') req.resume().on('end', answer);
        else setTimeout(answer, 30);
      },
      {
        host: '127.0.0.1',
        port: 0,
        logger: createLogger('silent'),
        draining: () => false,
        limits: { headersTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, bodyIdleTimeoutMs: 30_000, maxConnections: 10_000 },
      },
    );
  });
  after(async () => server.close());

  const waitForZero = async () => {
    for (let i = 0; i < 50 && server.inFlight() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    return server.inFlight();
  };

  it('answers a body cut short behind an answered request, in its own shape', async () => {
    const text = await exchange(
      server.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' +
        'POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nContent-Length: 100\r\n\r\n{"model":',
      150, // the first is answered (30 ms) before the client gives up on the second's body
    );
    expect(statuses(text)).to.deep.equal([200, 400]);
    expect(text.slice(text.lastIndexOf('\r\n\r\n') + 4)).to.match(/^\{"type":"error"/); // the Messages shape
    expect(await waitForZero()).to.equal(0);
  });

  it('counts no request as open once its connection is gone, even one queued behind a refusal', async () => {
    const text = await exchange(server.url, 'GET /v1/models HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'); // no Host first
    expect(statuses(text)[0]).to.equal(400);
    expect(await waitForZero()).to.equal(0); // the graceful drain would otherwise wait out its whole grace period
  });
});
