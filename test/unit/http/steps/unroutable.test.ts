import net from 'node:net';
import { expect } from 'chai';
import { refuseUnroutable } from '../../../../src/http/steps/unroutable.ts';
import { startSteps } from './harness.ts';

/** Raw bytes in, raw bytes out (fetch always sends Host). */
function raw(url: string, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    setTimeout(() => socket.destroy(), 5000);
  });
}

describe('step: Host and Expect', () => {
  let server: Awaited<ReturnType<typeof startSteps>>;
  before(async () => (server = await startSteps([refuseUnroutable()])));
  after(() => server.close());

  it('refuses an HTTP/1.1 request without Host with a 400 in the endpoint shape, and closes the connection', async () => {
    const text = await raw(server.url, 'GET /v1/messages HTTP/1.1\r\n\r\n');
    expect(text).to.match(/^HTTP\/1\.1 400 /);
    expect(text.toLowerCase()).to.include('connection: close');
    expect(text).to.match(/\{"type":"error","error":\{"type":"invalid_request_error","message":"An HTTP\/1\.1 request needs a Host header\."/);
  });

  it('lets HTTP/1.0 without Host through', async () => {
    expect(await raw(server.url, 'GET /v1/models HTTP/1.0\r\n\r\n')).to.match(/^HTTP\/1\.1 200 /);
  });

  it('refuses an Expect other than 100-continue with a 417 (Node hands it over from checkExpectation)', async () => {
    const text = await raw(server.url, 'GET /v1/models HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    expect(text).to.match(/^HTTP\/1\.1 417 /);
    expect(text).to.match(/\{"error":\{"message":"[^"]+","type":"[a-z_]+","code":"expectation_failed"/);
  });
});
