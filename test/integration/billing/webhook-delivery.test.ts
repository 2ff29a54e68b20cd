// What a webhook receiver can cost the gateway (issue 33, 6): an attempt reads the status line and
// the first 1,024 bytes of the answer within one deadline, then drops the connection, so a
// receiver answering an endless body leaves the gateway's memory where it was (before: every
// attempt buffered the whole answer until its timeout, 3.2 GB per replica); and every attempt goes
// to the webhook URL in force when it is made.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'chai';
import { webhookEgress } from '../../../src/domain/alerts/egress.ts';
import { ANSWER_LOG_BYTES } from '../../../src/domain/alerts/receiver-call.ts';
import { createAlerts } from '../../../src/domain/alerts/service.ts';
import { createLogger } from '../../../src/logger.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A receiver on loopback: `answer` writes each response; every request's webhook-id is recorded. */
async function receiver(answer: (res: http.ServerResponse) => void) {
  const ids: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    ids,
    close: () => (server.closeAllConnections(), server.close()),
  };
}

/**
 * An answer that never ends: 64 KiB every 4 ms (16 MB/s) for as long as the connection lasts. The
 * rate only bounds what the test costs when an attempt does read everything (the defect this
 * guards against); to a bounded reader it is endless all the same.
 */
function endless(status: number) {
  return (res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.write('endless answer ');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const timer = setInterval(() => res.writableNeedDrain || res.write(chunk), 4);
    res.on('close', () => clearInterval(timer));
  };
}

describe(`webhook deliveries: bounded reads of the answer, retries to the URL in force (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let alerts: ReturnType<typeof createAlerts>;

  before(async () => {
    gateway = await startTestGateway({ env: { WEBHOOK_ALLOW_INTERNAL: '127.0.0.1' } });
    // The deliverer under test, with a short deadline (a 2 s bound per attempt instead of 10 s).
    alerts = createAlerts({
      db: gateway.db,
      logger: createLogger('silent'),
      discovery: gateway.services.discovery,
      egress: webhookEgress(['127.0.0.1']),
      timeoutMs: 2_000,
    });
  });
  after(async () => gateway?.close());
  // A test's webhooks left pending come due 5 s later: on a slow machine, in the next test's run.
  afterEach(async () => gateway.db('webhook_deliveries').delete());

  /** A customer with 1.00 whose threshold of 5.00 is crossed: one balance.low queued to `url`. */
  async function queuedWebhook(url: string): Promise<{ customerId: string; id: string }> {
    const { customerId } = await gateway.customerWithKey();
    const credit = await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: `fund-${customerId}` });
    expect(credit.status).to.equal(201);
    const set = await gateway.admin('PATCH', `/admin/v1/customers/${customerId}/alerts`, { webhook_url: url, low_balance_threshold: '5.00' });
    expect(set.status).to.equal(200);
    await alerts.check();
    const row = await gateway.db('webhook_deliveries').where({ customer_id: customerId }).first();
    return { customerId, id: row.id };
  }
  const delivery = async (customerId: string) => (await gateway.admin('GET', `/admin/v1/webhook-deliveries?customer_id=${customerId}`)).body.data[0] as any;
  /** Makes the retry due now (time passes), then runs the deliverer. */
  const retryNow = async (id: string) => {
    await gateway.db('webhook_deliveries').where({ id }).update({ next_attempt_at: new Date() });
    return alerts.deliver();
  };

  it('keeps the memory within a few MB while receivers answer endless bodies, and logs each status with the start of its body', async () => {
    const failing = await receiver(endless(503));
    const accepting = await receiver(endless(200));
    try {
      // Warm up (code paths, pools), then measure from a collected heap.
      await queuedWebhook(failing.url);
      await alerts.deliver();

      const queued = await Promise.all(Array.from({ length: 6 }, () => queuedWebhook(failing.url)));
      gc();
      const base = process.memoryUsage();
      const peak = { rss: base.rss, buffers: base.arrayBuffers };
      const sampler = setInterval(() => {
        const now = process.memoryUsage();
        peak.rss = Math.max(peak.rss, now.rss);
        peak.buffers = Math.max(peak.buffers, now.arrayBuffers);
      }, 5);
      try {
        expect(await alerts.deliver()).to.equal(6); // six endless 503s at once
        for (const { id } of queued) await retryNow(id); // the retries, one by one
        await gateway.admin('PATCH', `/admin/v1/customers/${queued[0]!.customerId}/alerts`, { webhook_url: accepting.url });
        await retryNow(queued[0]!.id); // an endless 200: delivered
      } finally {
        clearInterval(sampler);
      }
      const MB = 1024 * 1024;
      // Peaks, not what is left after a collection: an answer read whole would show while it lasts.
      expect((peak.buffers - base.arrayBuffers) / MB, 'network buffers grown, MB').to.be.below(8);
      expect((peak.rss - base.rss) / MB, 'resident memory grown, MB').to.be.below(16);

      const first = await delivery(queued[0]!.customerId);
      expect(first).to.include({ status: 'delivered', attempts: 3, last_status: 200, url: accepting.url });
      expect(first.log.map((a: any) => [a.attempt, a.url, a.status, a.error])).to.deep.equal([
        [1, failing.url, 503, null],
        [2, failing.url, 503, null],
        [3, accepting.url, 200, null],
      ]);
      for (const attempt of first.log) {
        expect(attempt.body).to.have.length(ANSWER_LOG_BYTES);
        expect(attempt.body).to.match(/^endless answer x+$/);
      }
      const other = await delivery(queued[1]!.customerId);
      expect(other).to.include({ status: 'pending', attempts: 2, last_status: 503, last_error: null });
      expect(failing.ids.filter((id) => id === queued[1]!.id)).to.have.length(2);
    } finally {
      failing.close();
      accepting.close();
    }
  });

  it('takes the status of an answer whose body stalls, within the deadline, with the bytes that came', async () => {
    const stalling = await receiver((res) => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.write('{"received":'); // and nothing more, ever
    });
    try {
      const { customerId } = await queuedWebhook(stalling.url);
      expect(await alerts.deliver()).to.equal(1);
      const row = await delivery(customerId);
      expect(row).to.include({ status: 'delivered', attempts: 1, last_status: 202, last_error: null });
      expect(row.log[0]).to.include({ status: 202, body: '{"received":', error: null });
    } finally {
      stalling.close();
    }
  });

  it('sends a retry to the URL the customer set after the webhook was queued', async () => {
    const old = await receiver((res) => res.writeHead(503).end('busy'));
    const moved = await receiver((res) => res.writeHead(204).end());
    try {
      const { customerId, id } = await queuedWebhook(old.url);
      await alerts.deliver();
      expect(await delivery(customerId)).to.include({ status: 'pending', attempts: 1, last_status: 503, url: old.url });
      // The customer moves its receiver, with its own key.
      const key = (await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, {})).body.key;
      const moving = await fetch(`${gateway.url}/v1/alerts`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_url: moved.url }),
      });
      expect(moving.status).to.equal(200);
      await retryNow(id);
      const row = await delivery(customerId);
      expect(row).to.include({ status: 'delivered', attempts: 2, last_status: 204, url: moved.url });
      expect(row.log.map((a: any) => [a.url, a.status, a.body])).to.deep.equal([
        [old.url, 503, 'busy'],
        [moved.url, 204, ''],
      ]);
      expect([old.ids, moved.ids]).to.deep.equal([[id], [id]]); // one webhook-id, one attempt each
    } finally {
      old.close();
      moved.close();
    }
  });

  it('gives a webhook up once the customer removed its URL, without sending it anywhere', async () => {
    const gone = await receiver((res) => res.writeHead(500).end());
    try {
      const { customerId, id } = await queuedWebhook(gone.url);
      await alerts.deliver();
      await gateway.admin('PATCH', `/admin/v1/customers/${customerId}/alerts`, { webhook_url: null });
      await retryNow(id);
      const row = await delivery(customerId);
      expect(row).to.include({ status: 'failed', attempts: 2, next_attempt_at: null, url: gone.url });
      expect(row.log[1]).to.include({ url: null, status: null, error: 'no webhook_url: the customer removed it after this webhook was queued' });
      expect(gone.ids).to.deep.equal([id]);
    } finally {
      gone.close();
    }
  });
});
