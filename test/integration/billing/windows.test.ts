// Time windows never miss a committed row (issue 33, 5; docs/money.md, "The export watermark").
// While 24 writers post charges through credit grants (large balances) and per-request
// reservations (small balances), on two gateway processes sharing PostgreSQL (one gateway on the
// embedded PGlite), clients pull back-to-back windows throughout: usage exports with an explicit
// `to` (their own clock; a 425 is retried), exports without `to` (each next `from` the watermark
// answered), the operators' request log and a customer's own request log. Before, entries were
// dated at their transaction's start and log rows at their request's arrival, so a charge that
// waited on a wallet lock, or a request still running, committed into a window already read: 11 %
// of entries were lost under load. Now the union of the windows is the journal to the micro-unit,
// and every request's row, each once.
import { expect } from 'chai';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.ts';
import { testDatabaseUrlInUse, usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { message } from '../../helpers/limits.ts';
import { EMPTY_LOG_FIELDS, type RequestLogEntry } from '../../../src/logs/request-logs.ts';

const micros = (decimal: string) => BigInt(decimal.replace('.', ''));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Line {
  reference: string;
  charged: bigint;
}

describe(`time windows never miss a committed row: exports and request logs (${usingPostgres() ? 'PostgreSQL, two gateway processes' : 'PGlite, one gateway'})`, function () {
  this.timeout(600_000);
  let gateway: TestGateway;
  let child: ChildGateway | undefined;
  let urls: string[];

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'true', GRANT_FLUSH_MS: '20' } });
    urls = [gateway.url];
    if (usingPostgres()) {
      child = await startChildGateway({ env: { DATABASE_URL: testDatabaseUrlInUse(), GRANTS: 'true', GRANT_FLUSH_MS: '20', HOLD_SWEEPER: 'false' } });
      urls.push(child.url);
    }
  });
  after(async () => {
    if (child) {
      child.child.kill('SIGTERM');
      await child.exited;
    }
    await gateway?.close();
  });

  const admin = (path: string) => fetch(gateway.url + path, { headers: { authorization: `Bearer ${gateway.adminToken}` } });

  /** `fetch` until the answer is not a 425 (the period is not final yet): the client's retry. */
  async function untilFinal(call: () => Promise<Response>): Promise<Response> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const response = await call();
      if (response.status !== 425 || Date.now() > deadline) return response;
      await response.arrayBuffer();
      await pause(20);
    }
  }

  /** One NDJSON export's lines and the end it covered (`to`, or the watermark it names). */
  async function exportWindow(query: string): Promise<{ lines: Line[]; end: Date }> {
    const response = await untilFinal(() => admin(`/admin/v1/usage/export?format=ndjson&${query}`));
    expect(response.status).to.equal(200);
    const objects = (await response.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const totals = objects.pop();
    expect(totals.object, 'the file is whole').to.equal('usage_export.totals');
    const lines = objects.map((o) => ({ reference: `${o.entry}:${o.id}`, charged: micros(o.charged) }));
    expect(lines.reduce((s, l) => s + l.charged, 0n)).to.equal(micros(totals.charged));
    return { lines, end: new Date(response.headers.get('watermark') ?? totals.to) };
  }

  /** Every request id of one request-log window, through its pages (`cursor` names the next one). */
  async function logWindow(path: string, key: string, cursor: (last: string) => string): Promise<{ ids: string[]; watermark?: string }> {
    const ids: string[] = [];
    let next: string | undefined;
    for (;;) {
      const response = await untilFinal(() => fetch(`${path}${next ? cursor(next) : ''}`, { headers: { authorization: `Bearer ${key}` } }));
      const body = (await response.json()) as any;
      expect(response.status, JSON.stringify(body)).to.equal(200);
      ids.push(...body.data.map((r: any) => r.request_id));
      if (!body.has_more) return { ids, watermark: body.watermark };
      next = body.next_before ?? body.last_id;
    }
  }

  it('pulls back-to-back windows during concurrent grant and reservation charges on every gateway: their union is the journal and the log, each row once', async () => {
    const start = new Date();
    const customer = async (credit: string) => {
      const c = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${c.customerId}/credits`, { amount: credit, reference: `fund-${c.customerId}` });
      return c;
    };
    const large = await Promise.all(Array.from({ length: 4 }, () => customer('100.00'))); // credit grants
    const small = await Promise.all(Array.from({ length: 6 }, () => customer('0.003000'))); // too little for a grant
    const keys = new Map([...large, ...small].map((c) => [c.key, c.customerId]));

    // 24 writers: 3 per large customer (60 tokens), 2 per small one (200 tokens: a bound a quarter
    // of the balance cannot cover), alternating gateways, streams and plain answers.
    const made: Array<{ requestId: string; customerId: string; status: number; source?: string }> = [];
    const writer = async (key: string, maxTokens: number, w: number) => {
      for (let i = 0; i < 10; i++) {
        const response = await message(urls[(w + i) % urls.length]!, key, `window test ${w}.${i}`, { maxTokens, stream: i % 2 === 0 });
        await response.text();
        made.push({ requestId: response.headers.get('request-id')!, customerId: keys.get(key)!, status: response.status });
      }
    };
    const writing = Promise.all([
      ...large.flatMap((c, n) => [0, 1, 2].map((k) => writer(c.key, 60, n * 3 + k))),
      ...small.flatMap((c, n) => [0, 1].map((k) => writer(c.key, 200, 12 + n * 2 + k))),
    ]);

    // The pullers run until told where the traffic ended, then cover it.
    const traffic: { end?: Date } = {};
    const until = (from: Date) => traffic.end !== undefined && from >= traffic.end;
    const exportsAsked = async () => {
      const lines: Line[] = [];
      for (let from = start; !until(from);) {
        const to = new Date(); // a client's `to=<now>`
        lines.push(...(await exportWindow(`from=${from.toISOString()}&to=${to.toISOString()}`)).lines);
        from = to;
      }
      return lines;
    };
    const exportsToWatermark = async () => {
      const lines: Line[] = [];
      for (let from = start; !until(from);) {
        const window = await exportWindow(`from=${from.toISOString()}`);
        lines.push(...window.lines);
        from = window.end;
      }
      return lines;
    };
    const logsAsked = async () => {
      const ids: string[] = [];
      for (let from = start; !until(from);) {
        const to = new Date();
        const base = `${gateway.url}/admin/v1/request-logs?limit=100&from=${from.toISOString()}&to=${to.toISOString()}`;
        ids.push(...(await logWindow(base, gateway.adminToken, (last) => `&before=${last}`)).ids);
        from = to;
      }
      return ids;
    };
    const ownLogsToWatermark = async (key: string) => {
      const ids: string[] = [];
      for (let from = start; !until(from);) {
        const asked = new Date();
        const window = await logWindow(`${gateway.url}/v1/requests?limit=100&from=${from.toISOString()}`, key, (last) => `&after=${last}`);
        ids.push(...window.ids);
        from = new Date(window.watermark ?? asked);
      }
      return ids;
    };
    const pulling = Promise.all([exportsAsked(), exportsToWatermark(), logsAsked(), ownLogsToWatermark(small[0]!.key)]);

    await writing;
    const paid = made.filter((m) => m.status === 200);
    expect(paid.length, 'requests answered').to.be.greaterThan(200);
    // Every answered request's charge is posted (grants flush every 20 ms) and every row logged.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const charged = await gateway
        .db('ledger_entries')
        .whereIn(
          'reference',
          paid.flatMap((m) => [`charge:${m.requestId}`, `settle:${m.requestId}`]),
        )
        .count<{ n: string }[]>('* as n');
      const logged = await gateway
        .db('request_logs')
        .whereIn(
          'request_id',
          made.map((m) => m.requestId),
        )
        .count<{ n: string }[]>('* as n');
      if (Number(charged[0]!.n) === paid.length && Number(logged[0]!.n) === made.length) break;
      if (Date.now() > deadline) throw new Error(`charges ${charged[0]!.n}/${paid.length}, log rows ${logged[0]!.n}/${made.length} after 60 s`);
      await pause(50);
    }
    traffic.end = new Date();
    const [asked, toWatermark, adminLog, ownLog] = await pulling;

    // Both paths were taken: grant draws and per-request reservations.
    const sources = await gateway
      .db('request_logs')
      .whereIn(
        'request_id',
        paid.map((m) => m.requestId),
      )
      .distinct('hold_source');
    expect(new Set(sources.map((s) => s.hold_source))).to.deep.equal(new Set(['grant', 'reservation']));

    const journal: Line[] = (await gateway.db('ledger_entries').whereIn('kind', ['settle', 'charge', 'true_up']).select('reference', 'debits_delta')).map(
      (e) => ({ reference: e.reference, charged: BigInt(e.debits_delta) }),
    );
    const total = (lines: Line[]) => lines.reduce((s, l) => s + l.charged, 0n);
    for (const [name, lines] of [
      ['exports to the time asked', asked],
      ['exports to the watermark', toWatermark],
    ] as const) {
      const references = lines.map((l) => l.reference);
      expect(references.length - new Set(references).size, `${name}: lines seen twice`).to.equal(0);
      const missing = journal.filter((e) => !references.includes(e.reference));
      expect(missing.length, `${name}: journal entries no window held (of ${journal.length})`).to.equal(0);
      expect(references.length, name).to.equal(journal.length);
      expect(total(lines), `${name}: charged`).to.equal(total(journal));
    }
    for (const [name, ids, expected] of [
      ['operators request log', adminLog, made],
      ["a customer's own request log", ownLog, made.filter((m) => m.customerId === small[0]!.customerId)],
    ] as const) {
      expect(ids.length - new Set(ids).size, `${name}: rows seen twice`).to.equal(0);
      const missing = expected.filter((m) => !ids.includes(m.requestId));
      expect(missing.length, `${name}: requests no window held (of ${expected.length})`).to.equal(0);
    }
  });

  it("logs a row again when its owner's report replaces a sweeper's: a later window holds the new row", async () => {
    const { customerId } = await gateway.customerWithKey();
    const arrived = new Date(Date.now() - 60_000); // a minute ago
    const row = (status: number, swept: boolean): RequestLogEntry => ({
      ...EMPTY_LOG_FIELDS,
      request_id: `req_window_${customerId}`,
      customer_id: customerId,
      key_id: null,
      endpoint: 'messages_create',
      status,
      error_type: swept ? 'interrupted' : null,
      latency_ms: 5,
      created_at: arrived,
      swept,
    });
    const window = async (from: string, to?: string) => {
      const response = await untilFinal(() => admin(`/admin/v1/request-logs?customer_id=${customerId}&from=${from}${to ? `&to=${to}` : ''}`));
      const body = (await response.json()) as any;
      expect(response.status).to.equal(200);
      return body;
    };
    const start = new Date().toISOString();
    gateway.services.requestLogs.write(row(499, true)); // a sweeper took the process for dead
    await gateway.services.requestLogs.flush();
    const first = await window(start);
    expect(first.data.map((r: any) => r.status)).to.deep.equal([499]);
    gateway.services.requestLogs.write(row(200, false)); // the owner's own report, later
    await gateway.services.requestLogs.flush();
    const second = await window(first.watermark);
    expect(second.data.map((r: any) => [r.status, r.created_at])).to.deep.equal([[200, first.data[0].created_at]]);
    expect(Date.parse(second.data[0].logged_at)).to.be.greaterThan(Date.parse(first.data[0].logged_at));
    // The earlier window, read again, no longer holds it: each row is in the window of its last writing.
    expect((await window(start, first.watermark)).data).to.deep.equal([]);
  });
});
