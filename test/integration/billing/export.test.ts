import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';

/** RFC 4180 rows (quoted cells with doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(cell), (cell = ''));
    else if (c === '\r' && text[i + 1] === '\n') (row.push(cell), rows.push(row), (row = []), (cell = ''), i++);
    else cell += c;
  }
  expect(cell, 'the file ends with CRLF').to.equal('');
  return rows;
}

const micros = (decimal: string) => BigInt(decimal.replace('.', ''));

// The export ties out to the journal (issue 28): its totals over any period, a period boundary
// cutting through a day included, equal the journal's debits for that period to the micro-unit,
// with credit grants on (charges posted in batches, dated when posted).
describe(`usage export: CSV and NDJSON that tie out to the journal (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let mine: { customerId: string; keyId: string; key: string };
  let theirs: { customerId: string; keyId: string; key: string };
  const cuts: string[] = [];
  let start: string;
  let end: string;

  /** The database's clock, to the millisecond (what the journal dates entries by). */
  const dbNow = async () => {
    const { rows } = await gateway.db.raw<{ rows: Array<{ at: Date }> }>('select clock_timestamp() as at');
    return new Date(rows[0]!.at).toISOString();
  };
  const traffic = async (tag: string) => {
    const send = (key: string, path: string, body: unknown) =>
      fetch(gateway.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.text());
    await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        send(mine.key, '/v1/messages', {
          model: 'sandbox/claude-haiku',
          max_tokens: 60,
          stream: i % 2 === 0,
          messages: [{ role: 'user', content: `${tag} ${i}` }],
        }),
      ),
      send(mine.key, '/v1/messages', {
        model: 'sandbox/claude-haiku',
        max_tokens: 200,
        stream: true,
        messages: [{ role: 'user', content: `${tag} [[sim cut=2]]` }],
      }),
      send(mine.key, '/v1/messages', { model: 'sandbox/claude-sonnet', max_tokens: 40, messages: [{ role: 'user', content: `${tag} free` }] }),
      send(mine.key, '/v1/chat/completions', { model: 'sandbox/chat-model', messages: [{ role: 'user', content: `${tag} [[sim cached=3]]` }] }),
      send(theirs.key, '/v1/messages', { model: 'sandbox/claude-haiku', max_tokens: 60, messages: [{ role: 'user', content: tag }] }),
    ]);
    const videos = videoCalls(gateway, mine.key);
    const task = await videos.create({ model: 'sandbox/compatible-video', prompt: `${tag} ${QUICK}`, seconds: 4, size: '1280x720' });
    expect((await videos.finish(task.body.task_id)).status).to.equal('completed');
    await gateway.settled(); // every grant charge posted
  };

  before(async () => {
    gateway = await startTestGateway({ env: { GRANTS: 'true', GRANT_FLUSH_MS: '20' } });
    mine = await gateway.customerWithKey();
    theirs = await gateway.customerWithKey();
    for (const { customerId } of [mine, theirs])
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '50.00', reference: `fund-${customerId}` });
    start = await dbNow();
    await traffic('one');
    cuts.push(await dbNow());
    await traffic('two');
    // Many charges in one commit and more than a page of lines: straight
    // through the ledger, as the wallet queue batches settles.
    const { ledger } = gateway.services;
    const refs = Array.from({ length: 1100 }, (_, i) => `req_bulk${String(i).padStart(5, '0')}`);
    await Promise.all(
      refs.map((ref) =>
        ledger.reserve({
          ref,
          customerId: mine.customerId,
          bound: { amount: 1000n },
          purpose: { request_id: ref, model: 'sandbox/claude-haiku', key_id: mine.keyId },
        }),
      ),
    );
    await Promise.all(refs.map((ref, i) => ledger.settle({ ref, customerId: mine.customerId, charge: { amount: BigInt(1 + (i % 997)) } })));
    cuts.push(await dbNow());
    await traffic('three');
    end = await dbNow();
    await gateway.requestLogs(`customer_id=${mine.customerId}`, 30);
  });
  after(async () => gateway?.close());

  /** The journal's debits posted in [from, to), all kinds, for one customer or all. */
  const journalDebits = async (from: string, to: string, customerId?: string) => {
    const row = await gateway
      .db('ledger_entries')
      .where('posted_at', '>=', new Date(from))
      .where('posted_at', '<', new Date(to))
      .modify((q) => {
        if (customerId) q.where({ customer_id: customerId });
      })
      .select(
        gateway.db.raw('coalesce(sum(debits_delta), 0)::text as debits, count(*) filter (where kind in (?, ?, ?))::int as charges', [
          'settle',
          'charge',
          'true_up',
        ]),
      )
      .first();
    return { debits: BigInt(row.debits), charges: Number(row.charges) };
  };

  const download = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(gateway.url + path, { headers });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const own = (query: string, headers: Record<string, string> = {}) =>
    download(`/v1/usage/export?${query}`, { authorization: `Bearer ${mine.key}`, ...headers });

  /** Lines and totals of a CSV export, each line's charge summed. */
  const csv = (text: string) => {
    const [header, ...rows] = parseCsv(text);
    const at = (name: string) => header!.indexOf(name);
    const totals = rows.at(-1)!;
    const lines = rows.slice(0, -1);
    expect(totals[at('type')]).to.equal('total');
    const sum = lines.reduce((s, r) => s + micros(r[at('charged')]!), 0n);
    return { header: header!, lines, at, totals, sum, charged: micros(totals[at('charged')]!) };
  };

  it('ties out to the journal over every period, boundaries cutting through the day, in both formats', async () => {
    const periods = [
      [start, cuts[0]!],
      [cuts[0]!, cuts[1]!],
      [cuts[1]!, end],
      [start, end],
    ];
    expect(new Date(cuts[0]!).getUTCHours() * 3600 + new Date(cuts[0]!).getUTCMinutes() * 60 + new Date(cuts[0]!).getUTCSeconds()).to.be.greaterThan(0);
    let parts = 0n;
    for (const [from, to] of periods) {
      const journal = await journalDebits(from!, to!, mine.customerId);
      expect(journal.debits > 0n, `${from} - ${to} has charges`).to.equal(true);
      const text = await own(`from=${encodeURIComponent(from!)}&to=${encodeURIComponent(to!)}&format=csv`);
      expect(text.status).to.equal(200);
      expect(text.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(text.headers.get('content-disposition')).to.match(/^attachment; filename="usage-cus_\w+-.+\.csv"$/);
      const table = csv(text.text);
      expect(table.charged, `${from} - ${to}`).to.equal(journal.debits);
      expect(table.sum).to.equal(journal.debits);
      expect(table.lines).to.have.length(journal.charges);
      expect(table.totals[table.at('id')]).to.equal(`${journal.charges} lines`);
      expect(new Set(table.lines.map((r) => r[table.at('customer_id')]))).to.deep.equal(new Set([mine.customerId]));
      if (to !== end || from !== start) parts += table.charged;

      const ndjson = await own(`from=${encodeURIComponent(from!)}&to=${encodeURIComponent(to!)}`, { accept: 'application/x-ndjson' });
      expect(ndjson.headers.get('content-type')).to.equal('application/x-ndjson');
      const objects = ndjson.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      const totals = objects.pop();
      expect(totals).to.include({ object: 'usage_export.totals', customer_id: mine.customerId, lines: journal.charges });
      expect(micros(totals.charged)).to.equal(journal.debits);
      expect(objects.reduce((s, o) => s + micros(o.charged), 0n)).to.equal(journal.debits);
      expect(objects.every((o) => o.object === 'usage_export.line')).to.equal(true);
    }
    // The three parts are the whole, each charge in exactly one of them.
    expect(parts).to.equal((await journalDebits(start, end, mine.customerId)).debits);
    // Today by its date, without `to`: up to the watermark the answer names, equal to the journal's.
    const today = start.slice(0, 10);
    const sofar = await own(`from=${today}`);
    const watermark = sofar.headers.get('watermark')!;
    expect(Date.parse(watermark)).to.be.at.least(Date.parse(end));
    expect(csv(sofar.text).charged).to.equal((await journalDebits(`${today}T00:00:00Z`, watermark, mine.customerId)).debits);
    // The whole day asked for while it lasts: refused, not answered in part.
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const early = await own(`from=${today}&to=${tomorrow}`);
    expect(early.status).to.equal(425);
    expect(JSON.parse(early.text).error).to.include({ code: 'period_not_final', param: 'to' });
    expect(Number(early.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(early.headers.get('watermark')).to.match(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('names each line: request or task, entry, model, price version, usage, free units; each has its receipt', async () => {
    const table = csv((await own(`from=${encodeURIComponent(start)}&to=${encodeURIComponent(cuts[0]!)}`)).text);
    const col = (row: string[], name: string) => row[table.at(name)];
    const types = new Set(table.lines.map((r) => `${col(r, 'type')}/${col(r, 'entry')}`));
    expect(types).to.deep.equal(new Set(['request/charge', 'request/settle', 'video_task/settle']));
    const task = table.lines.find((r) => col(r, 'type') === 'video_task')!;
    expect(task).to.satisfy((r: string[]) => col(r, 'video_seconds') === '4' && col(r, 'video_tier') === '720p' && col(r, 'charged') === '0.400000');
    expect(col(task, 'model')).to.equal('sandbox/compatible-video');
    const free = table.lines.find((r) => col(r, 'model') === 'sandbox/claude-sonnet')!;
    expect(Number(col(free, 'free_units'))).to.be.greaterThan(0);
    expect(col(free, 'charged')).to.equal('0.000000');
    expect(table.lines.some((r) => col(r, 'estimated') === 'true')).to.equal(true); // the cut stream
    expect(table.lines.every((r) => col(r, 'price_version') === '1' && col(r, 'currency') === 'USD')).to.equal(true);
    for (const row of table.lines.slice(0, 4)) {
      const receipt = (await (await fetch(`${gateway.url}/v1/requests/${col(row, 'id')}`, { headers: { authorization: `Bearer ${mine.key}` } })).json()) as any;
      expect(receipt.charge.amount).to.equal(col(row, 'charged'));
      expect(receipt.model).to.equal(col(row, 'model'));
    }
  });

  it("operators export one customer's or everyone's; both tie out, and nothing of another customer reaches a customer", async () => {
    const period = `from=${encodeURIComponent(start)}&to=${encodeURIComponent(end)}`;
    const auth = { authorization: `Bearer ${gateway.adminToken}` };
    const everyone = csv((await download(`/admin/v1/usage/export?${period}`, auth)).text);
    expect(everyone.charged).to.equal((await journalDebits(start, end)).debits);
    expect(new Set(everyone.lines.map((r) => r[everyone.at('customer_id')]))).to.deep.equal(new Set([mine.customerId, theirs.customerId]));
    const theirsOnly = await download(`/admin/v1/usage/export?customer_id=${theirs.customerId}&${period}&format=ndjson`, auth);
    const totals = JSON.parse(theirsOnly.text.trimEnd().split('\n').at(-1)!);
    expect(micros(totals.charged)).to.equal((await journalDebits(start, end, theirs.customerId)).debits);
    expect((await download(`/admin/v1/usage/export?customer_id=cus_nobody`, auth)).status).to.equal(404);
    const theirView = csv((await download(`/v1/usage/export?${period}`, { authorization: `Bearer ${theirs.key}` })).text);
    expect(theirView.charged).to.equal(micros(totals.charged));
  });

  it('refuses a period that ends before it starts, and needs a key', async () => {
    const backwards = await own('from=2026-02-01&to=2026-01-01');
    expect(backwards.status).to.equal(400);
    expect(JSON.parse(backwards.text).error.code).to.equal('invalid_date_range');
    expect((await own('from=yesterday')).status).to.equal(400);
    expect((await fetch(`${gateway.url}/v1/usage/export`)).status).to.equal(401);
    // An empty period is a header and a zero totals line.
    const empty = csv((await own('from=2000-01-01&to=2000-01-02')).text);
    expect(empty.lines).to.have.length(0);
    expect(empty.totals[empty.at('charged')]).to.equal('0.000000');
  });
});
