import { expect } from 'chai';
import { startAnthropicSimulator, type AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import { startArkSimulator, type ArkSimulator } from '../../../src/sandbox/ark/server.ts';
import { startForwardProxy, type ForwardProxy } from '../../helpers/forward-proxy.ts';
import { haikuModel, sampleCatalogueWith, seedanceModel, testProvider } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// Operators whose network reaches providers only through a forward proxy set HTTPS_PROXY (and
// HTTP_PROXY) with NO_PROXY for the exceptions. Both of the gateway's clients honour them: the
// relay of /v1/messages (undici) and the video providers' calls and downloads (got). The providers
// here are "real" ones (a base_url and a credential), on loopback over http, so HTTP_PROXY applies.
// Every call goes through a CONNECT tunnel (as for https), so a proxy's refusal is a failed connection.
describe('provider calls through a forward proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY)', function () {
  this.timeout(60_000);
  let anthropic: AnthropicSimulator;
  let ark: ArkSimulator;
  let proxy: ForwardProxy;
  let cataloguePath: string;
  let gateway: TestGateway | undefined;

  before(async () => {
    anthropic = await startAnthropicSimulator();
    ark = await startArkSimulator({ queuedMs: 0, runningMs: 0 });
    cataloguePath = sampleCatalogueWith({
      providers: [
        testProvider('anthropic-direct', 'anthropic', anthropic.baseUrl, 'PROXY_TEST_ANTHROPIC_KEY'),
        testProvider('ark-direct', 'ark-video', ark.baseUrl, 'PROXY_TEST_ARK_KEY'),
      ],
      models: [haikuModel('proxied/claude', 'anthropic-direct'), seedanceModel('proxied/seedance', 'ark-direct', { cancellable: true })],
    });
    process.env.PROXY_TEST_ANTHROPIC_KEY = 'sk-ant-proxy-test';
    process.env.PROXY_TEST_ARK_KEY = 'ark-proxy-test';
  });
  afterEach(async () => {
    if (gateway) expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway?.close();
    gateway = undefined;
    await proxy?.close();
  });
  after(async () => {
    await anthropic.close();
    await ark.close();
    delete process.env.PROXY_TEST_ANTHROPIC_KEY;
    delete process.env.PROXY_TEST_ARK_KEY;
  });

  async function funded(env: Record<string, string>) {
    gateway = await startTestGateway({ cataloguePath, env });
    const customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '20.00', reference: 'fund' });
    return { gateway, key: customer.key, v: videoCalls(gateway, customer.key) };
  }

  const message = (g: TestGateway, key: string, stream = false) =>
    fetch(`${g.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'proxied/claude', max_tokens: 32, stream, messages: [{ role: 'user', content: 'hello through the proxy' }] }),
    });

  /** A video task created, polled to completion and downloaded: every call the gateway makes to Ark. */
  async function videoRoundTrip(v: ReturnType<typeof videoCalls>) {
    const created = await v.create({ model: 'proxied/seedance', prompt: 'a lighthouse', seconds: 5, resolution: '720p' });
    expect(created.status, JSON.stringify(created.body)).to.equal(202);
    const finished = await v.finish(created.body.id);
    expect(finished.status, JSON.stringify(finished)).to.equal('completed');
    const content = await v.content(created.body.id);
    expect(content.status).to.equal(200);
    expect(content.headers.get('content-type')).to.equal('video/mp4');
    return Buffer.from(await content.arrayBuffer());
  }

  it('relays messages (JSON and SSE) and every video call and download through HTTP_PROXY, with its credentials', async () => {
    proxy = await startForwardProxy({ credentials: { user: 'egress', password: 's3cret-proxy-pass' } });
    const { gateway: g, key, v } = await funded({ HTTP_PROXY: `http://egress:s3cret-proxy-pass@127.0.0.1:${proxy.port}` });
    const anthropicCalls = anthropic.requests.length;

    const json = await message(g, key);
    expect(json.status).to.equal(200);
    expect(((await json.json()) as { type: string }).type).to.equal('message');
    const sse = await message(g, key, true);
    expect(sse.status).to.equal(200);
    expect(await sse.text()).to.contain('event: message_stop');
    expect(anthropic.requests.length).to.equal(anthropicCalls + 2);
    const bytes = await videoRoundTrip(v);
    expect(bytes.length).to.be.greaterThan(0);

    // Tunnels, reused while kept alive: at least one to each provider, none anywhere else.
    const hostOf = (url: string) => new URL(url).host;
    expect(new Set(proxy.seen)).to.deep.equal(new Set([`CONNECT ${hostOf(anthropic.baseUrl)}`, `CONNECT ${hostOf(ark.baseUrl)}`]));
    expect(proxy.tunnelled.get(hostOf(anthropic.baseUrl)), 'bytes of the messages relayed').to.be.greaterThan(0);
    expect(proxy.tunnelled.get(hostOf(ark.baseUrl)), 'bytes of the video calls and download').to.be.greaterThan(bytes.length);
    expect(new Set(proxy.authorizations)).to.deep.equal(new Set([`Basic ${Buffer.from('egress:s3cret-proxy-pass').toString('base64')}`]));
    // The proxy's credentials never reach the provider, nor the logs.
    for (const request of anthropic.requests) expect(JSON.stringify(request.headers)).not.to.contain('proxy-authorization');
    await g.settled();
    expect(g.rawLogs()).not.to.contain('s3cret-proxy-pass');
  });

  it('connects directly to hosts NO_PROXY names, and reaches the same providers', async () => {
    proxy = await startForwardProxy();
    const { gateway: g, key, v } = await funded({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com, 127.0.0.1' });
    expect((await message(g, key)).status).to.equal(200);
    await videoRoundTrip(v);
    expect(proxy.seen).to.deep.equal([]);
  });

  it('reads the lower-case variables curl and most tools use', async () => {
    proxy = await startForwardProxy();
    const { gateway: g, key } = await funded({ http_proxy: proxy.url });
    expect((await message(g, key)).status).to.equal(200);
    expect(proxy.seen).to.have.length(1);
  });

  it('answers the customer 502 in the endpoint’s shape when the proxy refuses, naming neither proxy nor provider', async () => {
    proxy = await startForwardProxy({ credentials: { user: 'egress', password: 'right' } });
    const { gateway: g, key } = await funded({ HTTP_PROXY: `http://egress:wrong@127.0.0.1:${proxy.port}` });
    const response = await message(g, key);
    const text = await response.text();
    expect(response.status, text).to.equal(502);
    expect(JSON.parse(text).error.message).to.equal('The provider could not be reached; nothing was charged.');
    expect(JSON.parse(text).type).to.equal('error');
    expect(text).not.to.contain('127.0.0.1');
    expect(text).not.to.contain(String(proxy.port));
    await g.settled();
    expect(g.rawLogs()).not.to.contain('wrong@');
  });
});
