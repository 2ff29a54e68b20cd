import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// A provider's answer names the URL the gateway downloads a finished video from. Whatever it
// names, the gateway must not connect into its own network (its unauthenticated METRICS_PORT, a
// neighbour on loopback or the private network, a cloud metadata address) and stream that to a
// customer. The provider's own origin stays allowed: the sandbox serves its files from there.
const QUICK = '[[sim queued_ms=0 running_ms=0]]';

describe('video content: a URL in a provider’s answer cannot reach the gateway’s own network', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let ark: ArkSimulator;
  let v: ReturnType<typeof videoCalls>;
  let internal: http.Server;
  let internalHits = 0;
  let internalPort: number;

  before(async () => {
    // An internal service with a secret page, listening on every loopback form (IPv4 and IPv6).
    internal = http.createServer((_req, res) => {
      internalHits += 1;
      res.end('internal secret');
    });
    await new Promise<void>((resolve, reject) => internal.once('error', reject).listen(0, '::', resolve));
    internalPort = (internal.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => internal.close(() => resolve())));

  before(async () => {
    gateway = await startTestGateway({ env: { METRICS_PORT: '0' } });
    ark = gateway.simulators.get('sandbox-ark') as ArkSimulator;
  });
  beforeEach(async () => {
    await gateway.reset();
    const customer = await fundedCustomer(gateway, { balance: '20.00' });
    v = videoCalls(gateway, customer.key);
    internalHits = 0;
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  /** A finished Ark task whose answer names `url` as its video. */
  const completedNaming = async (url: string) => {
    const created = await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    expect(created.status, JSON.stringify(created.body)).to.equal(202);
    const row = await gateway.db('video_tasks').where({ id: created.body.id }).first();
    ark.videoUrls.set(row.upstream_task_id as string, url);
    expect((await v.finish(created.body.id)).task_status).to.equal('completed');
    return created.body.id as string;
  };

  const expectRefused = async (url: string, addressClass: string) => {
    const id = await completedNaming(url);
    const response = await v.content(id);
    const text = await response.text();
    expect(response.status, `${url}: ${text}`).to.equal(502);
    const body = JSON.parse(text) as { error: { code: string; type: string; message: string } };
    expect(body.error).to.include({ code: 'upstream_error', type: 'api_error' });
    expect(body.error.message).to.equal('The provider could not be reached; it gave a file location the gateway does not fetch.');
    expect(text).to.not.match(/127\.0\.0\.1|localhost|::1|metrics|secret|gateway_/);
    const refusal = () => gateway.logs.find((line) => line.msg === 'upstream call refused: the URL leads into an internal network');
    expect(refusal(), url).to.deep.include({ level: 40, provider: 'sandbox-ark', address_class: addressClass });
    expect(JSON.stringify(refusal())).to.not.include(url);
  };

  it('refuses the gateway’s own METRICS_PORT named by address (502, nothing of it in the answer)', async () => {
    const metricsUrl = gateway.metricsUrl!;
    expect(metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await expectRefused(metricsUrl, 'loopback');
    const scrape = await (await fetch(metricsUrl)).text();
    expect(scrape).to.match(/gateway_upstream_requests_total\{provider="sandbox-ark",outcome="egress",status=""\} 1/);
  });

  it('refuses a host name that resolves to loopback, checked on the address connected to', async () => {
    await expectRefused(`http://localhost:${internalPort}/secret`, 'loopback');
    expect(internalHits).to.equal(0);
  });

  for (const [name, host, addressClass] of [
    ['an IPv6 loopback literal', '[::1]', 'loopback'],
    ['an IPv4-mapped IPv6 literal', '[::ffff:127.0.0.1]', 'loopback'],
    ['the unspecified address (which reaches this machine)', '0.0.0.0', 'unspecified'],
    ['a decimal IPv4 literal', '2130706433', 'loopback'],
    ['a link-local (cloud metadata) address', '169.254.169.254', 'link-local'],
    ['a private network address', '10.0.0.1', 'private'],
  ] as const) {
    it(`refuses ${name}`, async () => {
      await expectRefused(`http://${host}:${internalPort}/secret`, addressClass);
      expect(internalHits).to.equal(0);
    });
  }

  it('still streams a file from the provider’s own origin (its base_url: the sandbox on loopback)', async () => {
    const created = await v.create({ model: 'sandbox/seedance', prompt: `a ${QUICK}` });
    await v.finish(created.body.id);
    const upstreamId = (await gateway.db('video_tasks').where({ id: created.body.id }).first()).upstream_task_id as string;
    const response = await v.content(created.body.id);
    expect(response.status).to.equal(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(ark.videoBytes(upstreamId))).to.equal(true);
  });
});
