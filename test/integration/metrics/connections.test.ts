// The METRICS_PORT listener has the API port's connection bounds (docs/operations.md,
// "Connections"; issue 33, 9): idle, silent and trickling connections are closed within the head
// and keep-alive bounds, and past MAX_CONNECTIONS a connection is refused at accept. Before, Node's
// defaults held 1,000 idle sockets there for 75-90 s and admitted any number.
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { connect, waitFor, type RawConnection } from '../../helpers/raw-connection.ts';

const BOUND_MS = 500;

/** Resolves with what the server sent before it closed `connection`, or fails after `ms`. */
async function closedWithin(connection: RawConnection, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the metrics port still holds the connection after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([connection.ended, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('metrics port: the API port bounds on its connections', function () {
  this.timeout(60_000);
  let gateway: TestGateway;

  before(async () => {
    gateway = await startTestGateway({
      env: {
        METRICS_PORT: '0',
        HTTP_HEADERS_TIMEOUT_MS: String(BOUND_MS),
        HTTP_KEEPALIVE_TIMEOUT_MS: String(BOUND_MS),
        HTTP_BODY_IDLE_TIMEOUT_MS: String(BOUND_MS),
      },
    });
  });
  after(async () => gateway?.close());

  it('closes many connections that send nothing, without an answer, within the head bound', async () => {
    const idle = await Promise.all(Array.from({ length: 200 }, () => connect(gateway.metricsUrl!)));
    // Every one is closed by the server (the clients never close their side); 20 bounds of margin.
    const answers = await Promise.all(idle.map((c) => closedWithin(c, 20 * BOUND_MS)));
    expect(new Set(answers)).to.deep.equal(new Set([''])); // nothing to answer: no request was begun
    for (const c of idle) c.socket.destroy();
    expect((await fetch(gateway.metricsUrl!)).status).to.equal(200);
  });

  it('closes a keep-alive connection left idle after a scrape', async () => {
    const client = await connect(gateway.metricsUrl!);
    client.socket.write('GET /metrics HTTP/1.1\r\nHost: metrics\r\n\r\n');
    const text = await closedWithin(client, 20 * BOUND_MS);
    expect(text).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.toLowerCase()).not.to.include('connection: close'); // kept alive, then timed out
    expect(text).to.include('# TYPE gateway_http_requests_total counter');
    client.socket.destroy();
  });

  it('answers a head trickled one line at a time with a 408, then closes', async () => {
    const slow = await connect(gateway.metricsUrl!);
    slow.socket.write('GET /metrics HTTP/1.1\r\nHost: metrics\r\n');
    const trickle = setInterval(() => slow.socket.writable && slow.socket.write(`x-line-${Date.now()}: 1\r\n`), 100);
    const text = await closedWithin(slow, 20 * BOUND_MS).finally(() => clearInterval(trickle));
    expect(text).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text.toLowerCase()).to.include('connection: close');
    slow.socket.destroy();
  });
});

describe('metrics port: past MAX_CONNECTIONS a connection is refused at once', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  before(async () => (gateway = await startTestGateway({ env: { MAX_CONNECTIONS: '3', METRICS_PORT: '0' } })));
  after(async () => gateway?.close());

  it('closes the connection past the cap without a byte, and serves again once one closes', async () => {
    // Held open with the default (30 s) head bound; accepted in the order they connected.
    const held = await Promise.all([connect(gateway.metricsUrl!), connect(gateway.metricsUrl!), connect(gateway.metricsUrl!)]);
    const surplus = await connect(gateway.metricsUrl!);
    expect(await closedWithin(surplus, 10_000)).to.equal('');
    for (const connection of held) expect(connection.socket.destroyed, 'a held connection').to.equal(false);
    // The API port has a cap of its own: it still serves.
    expect((await fetch(`${gateway.url}/healthz`)).status).to.equal(200);

    held[0]!.socket.destroy();
    const status = await waitFor(
      'a scrape after one connection closed',
      () =>
        fetch(gateway.metricsUrl!, { headers: { connection: 'close' } }).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
    );
    expect(status).to.equal(200);
    for (const connection of held) connection.socket.destroy();
  });
});
