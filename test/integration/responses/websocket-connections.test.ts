// What a Responses WebSocket may cost the gateway: a cap on open connections (WEBSOCKET_MAX_CONNECTIONS,
// a 503 before the upgrade completes), an age after which it is closed (WEBSOCKET_MAX_AGE_SECONDS,
// OpenAI's websocket_connection_limit_reached, then 1001), a key refused again at each turn; and
// requests carrying another Upgrade (h2c, a WebSocket elsewhere) served as the plain HTTP they are.
import net from 'node:net';
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { RESPONSES_MODEL } from '../../helpers/responses.ts';
import { openSocket, type TestSocket } from '../../helpers/websocket.ts';

const create = { type: 'response.create', model: RESPONSES_MODEL, input: 'hi' };

/** Sends raw bytes and reads until the gateway closes, or until `until` matches what came. */
function raw(gateway: TestGateway, bytes: string, until?: RegExp): Promise<string> {
  const { port, hostname } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (until?.test(text)) socket.destroy();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('responses over WebSocket: connections', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let keyId: string;
  const sockets: TestSocket[] = [];

  beforeEach(async () => {
    gateway = await startTestGateway({ env: { WEBSOCKET_MAX_CONNECTIONS: '1', WEBSOCKET_MAX_AGE_SECONDS: '2' } });
    let customerId: string;
    ({ key, keyId, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.ws.terminate();
    await gateway.close({ graceMs: 100 });
  });
  const open = async () => {
    const socket = await openSocket(gateway.url, key);
    sockets.push(socket);
    return socket;
  };

  it("takes WEBSOCKET_MAX_CONNECTIONS at once (503 before the upgrade beyond), and closes each at its age with OpenAI's code and 1001", async () => {
    const first = await open();
    const refused = await openSocket(gateway.url, key).catch((error: any) => error);
    expect(refused.status).to.equal(503);
    expect(JSON.parse(refused.body).error.code).to.equal('websocket_connections_exhausted');
    expect((await first.turn(create)).at(-1)!.type).to.equal('response.completed');
    expect(await first.closed).to.deep.equal({ code: 1001, reason: 'connection lifetime reached' });
    expect(first.events.at(-1)!.error).to.include({ code: 'websocket_connection_limit_reached' });
    expect((await (await open()).turn(create)).at(-1)!.type).to.equal('response.completed'); // its place is free again
  });

  it('refuses a turn of a key revoked since the upgrade, and closes the connection (1008)', async () => {
    const socket = await open();
    expect((await socket.turn(create)).at(-1)!.type).to.equal('response.completed');
    expect((await gateway.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).to.equal(200);
    const [refused] = await socket.turn(create);
    expect(refused).to.deep.include({ type: 'error', status: 401 });
    expect((await socket.closed).code).to.equal(1008);
  });

  it('serves a request with another Upgrade as plain HTTP: an h2c POST with its body, a WebSocket to another path, keep-alive intact', async () => {
    const body = JSON.stringify({ model: RESPONSES_MODEL, input: 'hi' });
    const answer = await raw(
      gateway,
      `POST /v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      /"object":"list"/,
    );
    const answers = answer.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).to.deep.equal(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(answers[0]).to.include('"status":"completed"');
    expect(answers[1]).to.include(RESPONSES_MODEL);
  });
});
