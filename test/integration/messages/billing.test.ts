import { expect } from 'chai';
import type { AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import { eventually } from '../../helpers/eventually.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const HAIKU = 'sandbox/claude-haiku';
const SONNET = 'sandbox/claude-sonnet'; // two routes: sandbox-anthropic, then sandbox-anthropic-backup

/** The sample catalogue with short timeouts on the primary sandbox route, to exercise them. */
function catalogueWithShortTimeouts(): string {
  return sampleCatalogueWith({
    provider: { 'sandbox-anthropic': { timeouts: { connect_ms: 2000, first_byte_ms: 2000, response_ms: 2000, idle_ms: 1000 } } },
  });
}

interface Frame {
  event: string;
  data: any;
}
const framesOf = (text: string): Frame[] =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((raw) => {
      const lines = raw.split('\n');
      return { event: lines.find((l) => l.startsWith('event: '))!.slice(7), data: JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice(6)) };
    });

describe('messages: billing, streaming and routing edges', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let primary: AnthropicSimulator;
  let backup: AnthropicSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: catalogueWithShortTimeouts(), env: { GRANTS: 'false' } }); // per-request reservations: see grants.test.ts for the grant path
    primary = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    backup = gateway.simulators.get('sandbox-anthropic-backup') as AnthropicSimulator;
  });
  beforeEach(async () => {
    logged = 0;
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '1.00' }));
  });
  after(async () => gateway?.close());

  const send = (body: Record<string, unknown>, init: RequestInit = {}) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ max_tokens: 100, ...body }),
      ...init,
    });
  const ask = (model: string, content: string, stream = false) => send({ model, stream, messages: [{ role: 'user', content }] });
  const wallet = () => gateway.wallet(customerId);
  const journal = async () => {
    await gateway.settled();
    return (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data;
  };
  let logged = 0;
  /** The newest request log row of this customer, once the latest request's row is written. */
  const lastLog = async () => (await gateway.requestLogs(`customer_id=${customerId}`, ++logged))[0];
  const settledOnce = async () => {
    const rows = await journal();
    const resolutions = rows.filter((e: any) => e.kind === 'settle' || e.kind === 'release');
    expect(new Set(resolutions.map((e: any) => e.reservation_ref)).size).to.equal(resolutions.length);
    expect((await wallet()).reserved).to.equal('0.000000');
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    return resolutions;
  };

  it('relays every frame with its event line, in order, rewriting only the model', async () => {
    const response = await ask(HAIKU, 'Hello', true);
    expect(response.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    expect(response.headers.get('request-id')).to.match(/^req_/);
    const frames = framesOf(await response.text());
    expect(frames.map((f) => f.event)).to.deep.equal([
      'message_start',
      'content_block_start',
      'ping',
      ...Array(8).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const frame of frames) expect(frame.data.type).to.equal(frame.event);
    expect(frames[0]!.data.message.model).to.equal(HAIKU);
    expect(frames.at(-2)!.data.usage.output_tokens).to.equal(8);
  });

  it('estimates usage the provider did not report, charges more than nothing and marks it', async () => {
    const json = await ask(HAIKU, 'Hello [[sim no_usage]]');
    expect(json.status).to.equal(200);
    const jsonLog = await lastLog();
    expect(jsonLog.usage_estimated).to.equal(true);
    expect(jsonLog.output_tokens).to.be.greaterThan(0);
    expect(Number(jsonLog.cost)).to.be.greaterThan(0);

    await (await ask(HAIKU, 'Hello [[sim no_usage]]', true)).text();
    const streamLog = await lastLog();
    expect(streamLog).to.include({ usage_estimated: true, stream: true });
    expect(Number(streamLog.cost)).to.be.greaterThan(0);
    const settles = (await settledOnce()).filter((e: any) => e.kind === 'settle');
    expect(settles.map((e: any) => e.purpose.estimated)).to.deep.equal([true, true]);
  });

  it('aborts the upstream when the client goes away mid-stream, and settles what was delivered once', async () => {
    const controller = new AbortController();
    const response = await send(
      { model: HAIKU, stream: true, messages: [{ role: 'user', content: 'long [[sim gap_ms=50 deltas=200]]' }] },
      { signal: controller.signal },
    );
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('content_block_delta')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await eventually(() => expect(primary.abortedStreams).to.equal(1));
    const log = await lastLog();
    expect(log).to.include({ usage_estimated: true, stream: true });
    expect(log.output_tokens).to.be.lessThan(200);
    const [settle] = await settledOnce();
    expect(settle).to.include({ kind: 'settle' });
    expect(settle.purpose.ending).to.equal('client_gone');
    expect(Number(settle.amount)).to.be.greaterThan(0);
  });

  it('fails over to the next route on 529, 503 or a slow first byte before anything was sent', async () => {
    primary.next({ error: 529 }, { error: 503 }, { firstByteMs: 4000 });
    for (let i = 0; i < 3; i++) {
      const response = await ask(SONNET, `hi ${i}`);
      expect(response.status).to.equal(200);
      expect((await lastLog()).provider).to.equal('sandbox-anthropic-backup');
    }
    expect(primary.requests).to.have.length(3);
    expect(backup.requests).to.have.length(3);
    await settledOnce();
  });

  it('never fails over once the stream has started: a cut or idle stream ends and settles what was delivered', async () => {
    primary.next({ cutAfter: 3 });
    const cut = framesOf(await (await ask(SONNET, 'hi', true)).text());
    expect(cut.filter((f) => f.event === 'content_block_delta')).to.have.length(3);
    expect(cut.map((f) => f.event)).to.not.include('message_stop');
    expect(backup.requests).to.have.length(0);

    primary.next({ gapMs: 3000 });
    const idle = framesOf(await (await ask(SONNET, 'hi', true)).text());
    expect(idle.map((f) => f.event)).to.not.include('message_stop');
    expect(backup.requests).to.have.length(0);
    const settles = (await settledOnce()).filter((e: any) => e.kind === 'settle');
    expect(settles.map((e: any) => e.purpose.ending).sort()).to.deep.equal(['idle_timeout', 'upstream_cut']);
  });

  it('relays an error event after the 200 and settles by what was delivered', async () => {
    const frames = framesOf(await (await ask(HAIKU, 'hi [[sim error_event=2]]', true)).text());
    expect(frames.at(-1)).to.deep.equal({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const [settle] = await settledOnce();
    expect(settle.purpose).to.include({ ending: 'error_event', estimated: true });
    expect((await lastLog()).usage_estimated).to.equal(true);
  });

  it('answers 502 and releases when a JSON answer breaks off mid-body', async () => {
    const response = await ask(HAIKU, 'hi [[sim cut=1]]');
    expect(response.status).to.equal(502);
    expect(((await response.json()) as any).error.type).to.equal('api_error');
    const [release] = await settledOnce();
    expect(release.kind).to.equal('release');
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it('relays a provider 400 without failover and charges nothing', async () => {
    primary.next({ error: 400 });
    const response = await ask(SONNET, 'hi');
    expect(response.status).to.equal(400);
    const body = (await response.json()) as any;
    expect(body).to.deep.include({ type: 'error', request_id: response.headers.get('request-id') });
    expect(body.error.type).to.equal('invalid_request_error');
    expect(backup.requests).to.have.length(0);
    const [release] = await settledOnce();
    expect(release.kind).to.equal('release');
    expect((await wallet()).debits).to.equal('0.000000');
  });

  it('counts tokens through the provider, free of charge, and logs it', async () => {
    const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: HAIKU, messages: [{ role: 'user', content: 'Count these words please' }] }),
    });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as any;
    expect(body.input_tokens).to.be.a('number').greaterThan(0);
    expect(primary.requests.at(-1)!.path).to.equal('/v1/messages/count_tokens');
    expect((await wallet()).debits).to.equal('0.000000');
    expect(await journal()).to.have.length(1); // the top-up only
    expect(await lastLog()).to.include({ endpoint: 'messages_count_tokens', status: 200, provider: 'sandbox-anthropic' });
  });

  it('settles 100 concurrent streams from one wallet exactly, and reconciliation passes', async () => {
    const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => ask(HAIKU, `stream ${i}`, true).then((r) => r.text())));
    expect(responses.filter((text) => !text.includes('event: message_stop'))).to.deep.equal([]);
    const logs = await gateway.requestLogs(`customer_id=${customerId}`, 100);
    expect(logs).to.have.length(100);
    const charged = logs.reduce((sum: bigint, l: any) => sum + BigInt(l.cost.replace('.', '')), 0n);
    const after = await wallet();
    expect(BigInt(after.debits.replace('.', ''))).to.equal(charged);
    expect((await settledOnce()).filter((e: any) => e.kind === 'settle')).to.have.length(100);
  });
});
