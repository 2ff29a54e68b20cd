// What a connection may cost, on real sockets (docs/operations.md, "Connections"): one that sends
// nothing, trickles its head, idles after a response or stalls its body is closed within its
// bound, and past MAX_CONNECTIONS one is refused at once; a stream or a download that lasts
// longer than every bound is not touched. The bounds are small here (500 ms), so the tests are quick.
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { connect, waitFor } from '../../helpers/raw-connection.ts';
import { videoCalls } from '../../helpers/videos.ts';

const BOUND_MS = 500;
const SMALL_BOUNDS = {
  HTTP_HEADERS_TIMEOUT_MS: String(BOUND_MS),
  HTTP_KEEPALIVE_TIMEOUT_MS: String(BOUND_MS),
  HTTP_BODY_IDLE_TIMEOUT_MS: String(BOUND_MS),
  METRICS_PORT: '0', // scraped without taking a connection on the API port
};

/** The value of an unlabelled sample in a Prometheus text exposition. */
const sample = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
const scrape = async (gateway: TestGateway) => (await fetch(gateway.metricsUrl!)).text();
const openConnections = async (gateway: TestGateway) => sample(await scrape(gateway), 'gateway_http_open_connections');

/** The status and the JSON body of the one response in `text`. */
function response(text: string): { status: number; headers: string; body: any } {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined };
}

describe('connections: idle, slow and surplus connections are closed; long responses are not', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ env: SMALL_BOUNDS });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: 'fund' });
  });
  after(async () => gateway?.close());

  it('closes a connection that sends nothing, without an answer, and holds no descriptor for it', async () => {
    const before = sample(await scrape(gateway), 'gateway_http_header_timeouts_total');
    const idle = await connect(gateway.url);
    expect(await idle.ended).to.equal(''); // nothing to answer: no request was begun
    // The client never closes its side; the server's socket is gone all the same.
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 0,
    );
    expect(sample(await scrape(gateway), 'gateway_http_header_timeouts_total')).to.equal(before + 1);
    idle.socket.destroy();
  });

  it('answers a head trickled one header line at a time with a 408, then closes the connection', async () => {
    const slow = await connect(gateway.url);
    slow.socket.write('POST /v1/messages HTTP/1.1\r\nHost: gateway\r\n');
    const trickle = setInterval(() => slow.socket.writable && slow.socket.write(`x-line-${Date.now()}: 1\r\n`), 100);
    const text = await slow.ended.finally(() => clearInterval(trickle));
    const answer = response(text);
    expect(answer.status).to.equal(408);
    expect(answer.headers)
      .to.match(/\r\nconnection: close\r\n/)
      .and.match(/\r\nrequest-id: req_\w+\r\n/);
    // The request line of an unfinished head never leaves Node's parser: the default shape.
    expect(answer.body).to.deep.equal({
      error: { message: 'The request headers did not arrive in time.', type: 'timeout_error', code: 'request_timeout', param: null },
    });
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 0,
    );
    slow.socket.destroy();
  });

  it('closes an idle keep-alive connection once its response is sent and nothing follows', async () => {
    const client = await connect(gateway.url);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
    const text = await client.ended;
    expect(response(text).status).to.equal(200);
    expect(response(text).headers).not.to.match(/connection: close/); // kept alive, then timed out
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 0,
    );
    client.socket.destroy();
  });

  /** A request whose body stops after its first bytes: the answer and what it cost. */
  async function stalledBody(path: string, auth: Record<string, string>, start: string) {
    const walletBefore = await gateway.wallet(customerId);
    const client = await connect(gateway.url);
    const headers = Object.entries({ ...auth, 'content-type': 'application/json', 'content-length': '2000' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    client.socket.write(`POST ${path} HTTP/1.1\r\nHost: gateway\r\n${headers}\r\n${start}`);
    const answer = response(await client.ended);
    client.socket.destroy();
    await gateway.settled();
    expect(await gateway.wallet(customerId)).to.deep.equal(walletBefore);
    expect(await gateway.db('reservations').where({ status: 'pending' })).to.deep.equal([]);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    return answer;
  }

  it('answers a stalled Messages body with a 408 in the Anthropic shape, closes, and charges nothing', async () => {
    const answer = await stalledBody('/v1/messages', { 'x-api-key': key }, '{"model":"sandbox/claude-sonnet","max_tokens":64,');
    expect(answer.status).to.equal(408);
    expect(answer.headers).to.match(/\r\nconnection: close\r\n/);
    expect(answer.body).to.include({ type: 'error' }).and.to.have.property('request_id').that.matches(/^req_/);
    expect(answer.body.error).to.deep.equal({ type: 'invalid_request_error', message: `The request body stopped arriving: no byte for ${BOUND_MS} ms.` });
  });

  it('answers a stalled chat body with a 408 in the OpenAI shape, closes, and charges nothing', async () => {
    const answer = await stalledBody('/v1/chat/completions', { authorization: `Bearer ${key}` }, '{"model":"sandbox/chat-model","messages":[');
    expect(answer.status).to.equal(408);
    expect(answer.headers).to.match(/\r\nconnection: close\r\n/);
    expect(answer.body).to.deep.equal({
      error: { message: `The request body stopped arriving: no byte for ${BOUND_MS} ms.`, type: 'timeout_error', code: 'request_timeout', param: null },
    });
  });

  it('does not let a body nobody reads (answered 401 first) hold the connection by trickling', async () => {
    const client = await connect(gateway.url);
    client.socket.write('POST /v1/messages HTTP/1.1\r\nHost: gateway\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{');
    const trickle = setInterval(() => client.socket.writable && client.socket.write(' '), 100);
    const text = await client.ended.finally(() => clearInterval(trickle));
    expect(response(text).status).to.equal(401);
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 0,
    );
    client.socket.destroy();
  });

  it('streams a Messages answer whose first byte and every gap take longer than every bound, to its end', async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sandbox/claude-sonnet',
        max_tokens: 256,
        stream: true,
        messages: [{ role: 'user', content: `[[sim first_byte_ms=${2 * BOUND_MS} gap_ms=${2 * BOUND_MS} deltas=4]]` }],
      }),
    });
    expect(response.status).to.equal(200);
    const text = await response.text();
    expect(text.match(/^event: content_block_delta$/gm)).to.have.length(4);
    expect(text).to.match(/^event: message_stop$/m);
  });

  it('takes a body that keeps coming in small pieces for longer than the bound: only gaps count', async () => {
    const client = await connect(gateway.url);
    const body = JSON.stringify({ model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'Hello there, slowly.' }] });
    client.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`,
    );
    const pieces = body.match(/.{1,12}/g)!; // about 6 pieces, one every 2/5 of the bound
    for (const piece of pieces) {
      await new Promise((r) => setTimeout(r, (2 * BOUND_MS) / 5));
      client.socket.write(piece);
    }
    const answer = response(await client.ended);
    client.socket.destroy();
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.object).to.equal('chat.completion');
  });

  it('sends a whole video file to a client that stops reading for longer than every bound, several times', async () => {
    const v = videoCalls(gateway, key);
    const size = 16 * 1024 * 1024;
    const created = await v.create({ model: 'sandbox/seedance', prompt: `a cat [[sim queued_ms=0 running_ms=0]] [[sim bytes=${size}]]` });
    expect(created.status).to.equal(202);
    expect((await v.finish(created.body.id)).task_status).to.equal('completed');
    const download = await v.content(created.body.id);
    expect(download.status).to.equal(200);
    const reader = download.body!.getReader();
    let received = 0;
    let nextPause = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
      if (received >= nextPause) {
        await new Promise((r) => setTimeout(r, 2 * BOUND_MS)); // the client reads nothing meanwhile
        nextPause += 4 * 1024 * 1024;
      }
    }
    expect(received).to.equal(size);
  });
});

describe('connections: past MAX_CONNECTIONS a connection is refused at once', function () {
  this.timeout(30_000);
  let gateway: TestGateway;
  before(async () => (gateway = await startTestGateway({ env: { MAX_CONNECTIONS: '3', METRICS_PORT: '0' } })));
  after(async () => gateway?.close());

  it('closes the connection past the cap without a byte, counts it, and serves again once one closes', async () => {
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 0,
    ); // the helper's own calls are done
    const held = await Promise.all([connect(gateway.url), connect(gateway.url), connect(gateway.url)]);
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 3,
    );
    const surplus = await connect(gateway.url);
    expect(await surplus.ended).to.equal('');
    expect(sample(await scrape(gateway), 'gateway_http_connections_refused_total')).to.equal(1);
    expect(await openConnections(gateway)).to.equal(3);

    held[0]!.socket.destroy();
    await waitFor(
      'open connections',
      () => openConnections(gateway),
      (n) => n === 2,
    );
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).to.equal(200);
    for (const connection of held) connection.socket.destroy();
  });
});
