import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.ts';
import { createAlerts } from '../../../src/domain/alerts/service.ts';
import { webhookEgress } from '../../../src/domain/alerts/egress.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback answering the statuses queued (then 200), recording every request. */
async function receiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, answers, close: () => server.close() };
}

/** The Standard Webhooks check a receiver makes: HMAC-SHA256 of id.timestamp.body under the secret's bytes. */
function verified(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

// Low-balance alerts and video events (issue 28): one signed webhook per crossing below the
// threshold, however many requests and checks race; re-armed on the way up; failures retried
// with backoff and logged; only to addresses the egress rules allow.
describe(`billing alerts: signed webhooks (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let customer: { customerId: string; keyId: string; key: string };

  before(async () => {
    hooks = await receiver();
    gateway = await startTestGateway({ env: { WEBHOOK_ALLOW_INTERNAL: '127.0.0.1', GRANTS: 'true' } });
    customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '1.00', reference: 'fund' });
  });
  after(async () => {
    hooks?.close();
    await gateway?.close();
  });

  const call = async (method: string, path: string, body?: unknown, key = customer.key) => {
    const response = await fetch(gateway.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const deliveries = async (type?: string) =>
    (await gateway.admin('GET', `/admin/v1/webhook-deliveries?customer_id=${customer.customerId}&limit=100`)).body.data.filter(
      (d: any) => !type || d.type === type,
    ) as any[];

  it('refuses webhook URLs that are not public http(s) addresses, and video events without a URL', async () => {
    for (const url of ['http://10.0.0.1/hooks', 'http://169.254.169.254/latest', 'ftp://example.com/x', 'https://user:pw@example.com/x', 'not a url']) {
      const refused = await call('PATCH', '/v1/alerts', { webhook_url: url });
      expect(refused.status, url).to.equal(400);
      expect(refused.body.error).to.include({ code: 'webhook_url_refused', param: 'webhook_url' });
    }
    const noUrl = await call('PATCH', '/v1/alerts', { video_events: true });
    expect(noUrl.body.error.code).to.equal('webhook_url_required');
    expect((await call('GET', '/v1/alerts')).body).to.deep.include({ low_balance_threshold: null, webhook_url: null, webhook_secret: null, armed: true });
  });

  it('sends one signed balance.low per crossing under concurrency, and re-arms on the way up', async () => {
    const set = await call('PATCH', '/v1/alerts', { low_balance_threshold: '0.999990', webhook_url: hooks.url });
    expect(set.status).to.equal(200);
    expect(set.body).to.deep.include({ object: 'alert_settings', low_balance_threshold: '0.999990', armed: true, webhook_url: hooks.url });
    const secret: string = set.body.webhook_secret;
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await gateway.services.alerts.check()).to.equal(0); // 1.00 is above the threshold

    // 16 requests spend concurrently while 4 checkers race each other through the crossing.
    let spending = true;
    const checkers = Array.from({ length: 4 }, async () => {
      let found = 0;
      while (spending) found += await gateway.services.alerts.check();
      return found;
    });
    const requests = Array.from({ length: 16 }, (_, i) =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': customer.key, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 40, messages: [{ role: 'user', content: `spend ${i}` }] }),
      }).then((r) => r.text()),
    );
    await Promise.all(requests);
    await gateway.settled();
    spending = false;
    const found = (await Promise.all(checkers)).reduce((a, b) => a + b, 0) + (await gateway.services.alerts.check()) + (await gateway.services.alerts.check());
    expect(found).to.equal(1);
    expect(await deliveries('balance.low')).to.have.length(1);
    expect((await call('GET', '/v1/alerts')).body.armed).to.equal(false);

    expect(await gateway.services.alerts.deliver()).to.equal(1);
    expect(hooks.received).to.have.length(1);
    const [first] = hooks.received;
    expect(verified(secret, first!)).to.equal(true);
    expect(first!.headers).to.include({ 'content-type': 'application/json' });
    expect(first!.headers['webhook-id']).to.match(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(first!.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.lessThan(30);
    const payload = JSON.parse(first!.body);
    const wallet = (await call('GET', '/v1/wallet')).body;
    expect(payload).to.deep.include({ type: 'balance.low' });
    expect(payload.data).to.deep.include({ customer_id: customer.customerId, threshold: '0.999990', currency: 'USD' });
    expect(Number(payload.data.available)).to.be.lessThan(0.99999).and.at.least(Number(wallet.available));

    // Back up: re-armed, nothing sent; down again: one more.
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '1.00', reference: 'top-up-2' });
    expect(await gateway.services.alerts.check()).to.equal(0);
    expect((await call('GET', '/v1/alerts')).body.armed).to.equal(true);
    const debit = await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/adjustments`, {
      amount: '-1.50',
      reason: 'test',
      reference: 'debit-1',
    });
    expect(debit.status).to.equal(201);
    const twice = await Promise.all([gateway.services.alerts.check(), gateway.services.alerts.check(), gateway.services.alerts.check()]);
    expect(twice.reduce((a, b) => a + b, 0)).to.equal(1);
    expect(await deliveries('balance.low')).to.have.length(2);
    await gateway.services.alerts.deliver();
    expect(hooks.received).to.have.length(2);
    expect(hooks.received[1]!.headers['webhook-id']).to.not.equal(first!.headers['webhook-id']);
  });

  it('retries a failed delivery with backoff under the same webhook-id, logging every attempt, and gives up after the last', async () => {
    hooks.received.length = 0;
    hooks.answers.push(503, 500);
    // An operator raises the threshold above the balance: armed again, and one crossing at the next check.
    const set = await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/alerts`, { low_balance_threshold: '100.00' });
    expect(set.status).to.equal(200);
    expect(set.body).to.include({ armed: true, low_balance_threshold: '100.000000' });
    expect(await gateway.services.alerts.check()).to.equal(1);
    const pending = () => gateway.db('webhook_deliveries').where({ customer_id: customer.customerId, status: 'pending' }).first();
    const id = (await pending()).id;

    const attempt = async () => {
      await gateway.db('webhook_deliveries').where({ id }).update({ next_attempt_at: new Date() }); // time passes
      return gateway.services.alerts.deliver();
    };
    const before = Date.now();
    await gateway.services.alerts.deliver();
    let row = await pending();
    expect(row).to.include({ attempts: 1, last_status: 503 });
    const delay = new Date(row.next_attempt_at).getTime() - before;
    expect(delay).to.be.within(4_000, 6_500); // 5 s, then doubling
    await attempt();
    row = await pending();
    expect(row).to.include({ attempts: 2, last_status: 500 });
    expect(new Date(row.next_attempt_at).getTime() - Date.now()).to.be.within(8_000, 10_500);
    await attempt();
    const [logged] = (await deliveries()).filter((d) => d.id === id);
    expect(logged).to.include({ status: 'delivered', attempts: 3, last_status: 200, last_error: null, next_attempt_at: null });
    expect(logged.log.map((e: any) => [e.attempt, e.status])).to.deep.equal([
      [1, 503],
      [2, 500],
      [3, 200],
    ]);
    expect(hooks.received.map((r) => r.headers['webhook-id'])).to.deep.equal([id, id, id]);
    expect(new Set(hooks.received.map((r) => r.body)).size).to.equal(1); // the same body every time
    const secret = (await call('GET', '/v1/alerts')).body.webhook_secret;
    expect(hooks.received.every((r) => verified(secret, r))).to.equal(true);

    // A receiver that never answers 2xx: given up after the 12th attempt.
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '200.00', reference: 'top-up-3' });
    await gateway.services.alerts.check(); // re-armed
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/adjustments`, { amount: '-150.00', reason: 'test', reference: 'debit-2' });
    expect(await gateway.services.alerts.check()).to.equal(1);
    const last = (await pending()).id;
    await gateway.db('webhook_deliveries').where({ id: last }).update({ attempts: 11 });
    hooks.answers.push(500);
    await attempt.call(null);
    const failed = (await gateway.admin('GET', `/admin/v1/webhook-deliveries?customer_id=${customer.customerId}&status=failed`)).body.data;
    expect(failed.map((d: any) => d.id)).to.deep.equal([last]);
    expect(failed[0]).to.include({ attempts: 12, last_status: 500, next_attempt_at: null });
  });

  it('checks host names on the address connected to: a name resolving to loopback is refused unless allowed, and logged', async () => {
    const strict = createAlerts({ db: gateway.db, logger: createLogger('silent'), discovery: gateway.services.discovery, egress: webhookEgress([]) });
    await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/alerts`, { webhook_url: hooks.url.replace('127.0.0.1', 'localhost') });
    await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/alerts`, { low_balance_threshold: '1000.00' });
    expect(await strict.check()).to.equal(1);
    hooks.received.length = 0;
    expect(await strict.deliver()).to.equal(1);
    expect(hooks.received).to.have.length(0);
    const [row] = (await deliveries()).filter((d) => d.status === 'pending');
    expect(row).to.include({ attempts: 1, last_status: null, last_error: 'refused: the URL leads into an internal network' });
    expect(row.log[0]).to.include({ attempt: 1, status: null, error: 'refused: the URL leads into an internal network' });
    // The gateway's own rules allow 127.0.0.1: its next attempt goes through.
    await gateway.db('webhook_deliveries').where({ id: row.id }).update({ next_attempt_at: new Date() });
    await gateway.services.alerts.deliver();
    expect(hooks.received).to.have.length(1);
    await gateway.admin('PATCH', `/admin/v1/customers/${customer.customerId}/alerts`, { low_balance_threshold: null, webhook_url: hooks.url });
  });

  it("announces video tasks' terminal states once, from when video events were switched on", async () => {
    const videos = videoCalls(gateway, customer.key);
    const quiet = `[[sim queued_ms=0 running_ms=0]]`;
    const before = await videos.create({ model: 'sandbox/compatible-video', prompt: `early ${quiet}`, seconds: 4, size: '1280x720' });
    expect((await videos.finish(before.body.task_id)).status).to.equal('completed');
    const on = await call('PATCH', '/v1/alerts', { video_events: true });
    expect(on.body.video_events).to.equal(true);
    const task = await videos.create({ model: 'sandbox/compatible-video', prompt: `later ${quiet}`, seconds: 4, size: '1280x720' });
    expect((await videos.finish(task.body.task_id)).status).to.equal('completed');
    hooks.received.length = 0;
    const counts = await Promise.all([gateway.services.alerts.check(), gateway.services.alerts.check()]);
    expect(counts.reduce((a, b) => a + b, 0)).to.equal(1);
    expect(await gateway.services.alerts.check()).to.equal(0);
    await gateway.services.alerts.deliver();
    expect(hooks.received).to.have.length(1);
    const payload = JSON.parse(hooks.received[0]!.body);
    expect(payload).to.deep.include({ type: 'video.completed' });
    expect(payload.data).to.deep.include({
      task_id: task.body.task_id,
      status: 'completed',
      model: 'sandbox/compatible-video',
      billed_seconds: 4,
      billed_tier: '720p',
      billed_amount: '0.400000',
      currency: 'USD',
      error: null,
    });
    expect((await gateway.admin('GET', '/admin/v1/customers/cus_nobody/alerts')).status).to.equal(404);
  });
});
