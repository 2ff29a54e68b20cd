import { expect } from 'chai';
import { createLogger } from '../../../src/logger.ts';
import { EMPTY_LOG_FIELDS } from '../../../src/logs/request-logs.ts';
import { REQUEST_LOG_UPKEEP_LEASE } from '../../../src/jobs/cron.ts';
import { leaseOf } from '../../../src/jobs/lease.ts';
import { createRequestLogUpkeep, PARTITIONS_AHEAD } from '../../../src/logs/retention.ts';
import { newRequestId, requestIdTime } from '../../../src/shared/ids.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const DAY = 86_400_000;

// Request-log retention (issue 38): the request log is partitioned by month of created_at (the
// arrival a request id carries); rows older than REQUEST_LOG_RETENTION_DAYS go, whole months by
// dropping their partition and the rest in batches, once across replicas; the journal stays, and
// the receipt of a removed row is answered from it and says so.
describe(`request-log retention and monthly partitions (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let other: TestGateway | undefined;
  let mine: { customerId: string; keyId: string; key: string };
  let theirs: { customerId: string; keyId: string; key: string };

  before(async () => {
    gateway = await startTestGateway({ env: { REQUEST_LOG_RETENTION_DAYS: '30' } });
    mine = await gateway.customerWithKey();
    theirs = await gateway.customerWithKey();
    for (const { customerId } of [mine, theirs])
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: `fund-${customerId}` });
  });
  afterEach(async () => {
    await other?.close();
    other = undefined;
  });
  after(async () => gateway?.close());

  const partitions = async (): Promise<string[]> =>
    (
      await gateway.db.raw<{ rows: Array<{ name: string }> }>(
        `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_logs'::regclass order by 1`,
      )
    ).rows.map((r) => r.name);
  const partitionOf = (at: Date) => `request_logs_y${at.getUTCFullYear()}m${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
  const monthsFromNow = (n: number) => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + n, 1));
  };

  /**
   * A request that arrived `at` (its id carries the time), as a gateway then would have left it: a
   * reservation settled in the journal and its log row, in the month's partition (made as the job
   * would have made it then).
   */
  async function pastRequest(at: Date, who = mine): Promise<string> {
    const id = newRequestId(at.getTime());
    await gateway.db.raw('select request_logs_ensure_partition(?)', [at]);
    const { ledger, requestLogs } = gateway.services;
    const purpose = { request_id: id, model: 'sandbox/claude-haiku', key_id: who.keyId, endpoint: 'messages_create' };
    const price = await gateway.db('price_versions').where({ model_id: 'sandbox/claude-haiku' }).orderBy('version', 'desc').first('id');
    const reserve = { ref: id, customerId: who.customerId, bound: { amount: 20_000n }, purpose, priceVersionId: BigInt(price.id) };
    expect(await ledger.reserve(reserve)).to.have.property('ref', id);
    expect(await ledger.settle({ ref: id, charge: { amount: 3_750n }, purpose: { ending: 'complete' } })).to.not.be.a('string');
    requestLogs.write({
      ...EMPTY_LOG_FIELDS,
      request_id: id,
      customer_id: who.customerId,
      key_id: who.keyId,
      endpoint: 'messages_create',
      model: 'sandbox/claude-haiku',
      provider: 'sandbox-anthropic',
      status: 200,
      error_type: null,
      latency_ms: 40,
      input_tokens: 1200,
      output_tokens: 350,
      cost: 3_750n,
      hold_amount: 20_000n,
      hold_source: 'reservation',
      created_at: requestIdTime(id),
    });
    await requestLogs.flush();
    return id;
  }

  async function message(key = mine.key): Promise<string> {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(response.status).to.equal(200);
    await response.text();
    const id = response.headers.get('request-id')!;
    await gateway.settled();
    expect(await gateway.requestLog(id), 'its log row').to.have.property('request_id', id);
    return id;
  }

  const receipt = async (id: string, key = mine.key) => {
    const response = await fetch(`${gateway.url}/v1/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as any };
  };
  const rows = async (ids: string[]) => (await gateway.db('request_logs').whereIn('request_id', ids).select('request_id')).map((r) => r.request_id as string);
  const journal = async () => gateway.db('ledger_entries').orderBy('id').select('id', 'reference', 'kind', 'debits_delta', 'pending_delta', 'created_at');
  const exported = async () => {
    // Entries by posting time, up to the watermark (the default `to`).
    const from = new Date(Date.now() - DAY).toISOString();
    const response = await fetch(`${gateway.url}/v1/usage/export?from=${from}`, {
      headers: { authorization: `Bearer ${mine.key}`, accept: 'application/x-ndjson' },
    });
    expect(response.status).to.equal(200);
    return (await response.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .map(({ id, kind, type, model, price_version, charged, debt, free_amount }) => ({ id, kind, type, model, price_version, charged, debt, free_amount }));
  };

  it('removes rows older than the retention (whole months dropped, the rest in batches), keeps newer ones and the journal; receipts of removed rows come from the journal', async () => {
    const now = Date.now();
    const monthsAgo = await pastRequest(new Date(now - 100 * DAY)); // its month is wholly before the horizon
    const justBefore = await pastRequest(new Date(now - 30 * DAY - 3_600_000)); // the horizon's month, before it
    const justAfter = await pastRequest(new Date(now - 30 * DAY + 3_600_000)); // kept
    const theirsOld = await pastRequest(new Date(now - 45 * DAY), theirs);
    const recent = await message();
    const oldMonth = partitionOf(new Date(now - 100 * DAY));
    expect(await partitions()).to.include(oldMonth);
    const journalBefore = await journal();
    const exportBefore = await exported();
    expect(exportBefore.map((line) => line.id)).to.include.members([monthsAgo, justBefore, justAfter]);

    const run = await gateway.services.requestLogs.upkeep.run();
    expect(run).to.not.equal('skipped');
    if (run === 'skipped') return;
    expect(run.partitionsDropped).to.be.at.least(1);
    expect(run.rowsDeleted).to.be.at.least(1); // the horizon's month went row by row
    expect(run.removedBefore!.getTime()).to.be.within(now - 30 * DAY - 60_000, Date.now() - 30 * DAY + 60_000);
    expect(await rows([monthsAgo, justBefore, justAfter, theirsOld, recent])).to.have.members([justAfter, recent]);
    expect(await partitions()).to.not.include(oldMonth);
    expect(await journal(), 'the journal is never touched').to.deep.equal(journalBefore);
    expect(await exported(), 'the journal export is the same, line for line').to.deep.equal(exportBefore);

    // The receipt of a removed row: the money from the journal, the rest null, and a note.
    const removed = await receipt(justBefore);
    expect(removed.status).to.equal(200);
    expect(removed.body).to.deep.include({ id: justBefore, type: 'request', customer_id: mine.customerId, key_id: mine.keyId, endpoint: 'messages_create' });
    expect(removed.body).to.deep.include({ model: 'sandbox/claude-haiku', http_status: null, created_at: requestIdTime(justBefore).toISOString() });
    expect(removed.body.usage).to.deep.equal({
      reported: null,
      billed: { input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null },
      price_tier: null,
    });
    expect(removed.body.hold).to.deep.equal({ source: 'reservation', amount: '0.020000', free_units_held: 0, outcome: 'settled', released: '0.016250' });
    expect(removed.body.charge).to.include({ amount: '0.003750', total: '0.003750' });
    expect(removed.body.journal.map((e: any) => e.kind)).to.deep.equal(['reserve', 'settle']);
    expect(removed.body.price).to.include({ model: 'sandbox/claude-haiku' });
    expect(removed.body.log_removed).to.include({ reason: 'retention', removed_before: run.removedBefore!.toISOString() });
    expect(removed.body.log_removed.explanation).to.match(/journal/);
    const operators = await gateway.admin('GET', `/admin/v1/receipts/${monthsAgo}`);
    expect(operators.status).to.equal(200);
    expect(operators.body.log_removed).to.include({ reason: 'retention' });
    expect(operators.body).to.include({ provider: null, upstream_request_id: null });

    // Rows still there answer as before; another customer's removed request stays not found.
    expect((await receipt(justAfter)).body).to.include({ log_removed: null, http_status: 200 });
    expect((await receipt(recent)).body).to.include({ log_removed: null, http_status: 200 });
    expect((await receipt(theirsOld)).status).to.equal(404);
    expect((await receipt(theirsOld, theirs.key)).body.log_removed).to.include({ reason: 'retention' });
    expect((await receipt(newRequestId(now - 90 * DAY))).status, 'an old id that names nothing').to.equal(404);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('removes in bounded batches, rows of the default partition too', async () => {
    const now = Date.now();
    const old = [];
    for (let i = 0; i < 5; i++) old.push(await pastRequest(new Date(now - 31 * DAY - i * 60_000)));
    // A row whose month has no partition lands in the default one (the clock of a replica gone wrong).
    const stray = newRequestId(Date.UTC(2001, 0, 15));
    gateway.services.requestLogs.write({
      ...EMPTY_LOG_FIELDS,
      request_id: stray,
      customer_id: mine.customerId,
      key_id: mine.keyId,
      endpoint: 'messages_create',
      status: 200,
      error_type: null,
      latency_ms: 1,
      created_at: requestIdTime(stray),
    });
    await gateway.services.requestLogs.flush();
    expect((await gateway.db.raw(`select tableoid::regclass::text as p from request_logs where request_id = ?`, [stray])).rows[0].p).to.equal(
      'request_logs_default',
    );
    const upkeep = createRequestLogUpkeep({
      db: gateway.db,
      logger: createLogger('silent'),
      retentionDays: 30,
      once: leaseOf(gateway.db, { ...REQUEST_LOG_UPKEEP_LEASE, holder: 'gw_batches', gapMs: 0 }),
      batchSize: 2,
    });
    const run = await upkeep.run();
    expect(run).to.not.equal('skipped');
    if (run === 'skipped') return;
    expect(run.rowsDeleted).to.equal(6);
    expect(await rows([...old, stray])).to.deep.equal([]);
  });

  it('runs once across replicas: two gateways ticking together remove the rows once', async () => {
    const old = await pastRequest(new Date(Date.now() - 40 * DAY));
    other = await startTestGateway({ env: { REQUEST_LOG_RETENTION_DAYS: '30' }, reuseDatabase: true });
    await gateway.db('job_leases').delete(); // the last test's run started within the gap
    const runs = await Promise.all([gateway.services.requestLogs.upkeep.run(), other.services.requestLogs.upkeep.run()]);
    expect(runs.filter((r) => r === 'skipped')).to.have.length(1);
    const ran = runs.find((r) => r !== 'skipped');
    expect(ran).to.have.property('rowsDeleted', 1);
    expect(await rows([old])).to.deep.equal([]);
    // Within the period, neither runs again; the lease was given back, so once the gap passes either may.
    expect(await other.services.requestLogs.upkeep.run()).to.equal('skipped');
    const lease = await gateway.db('job_leases').where({ name: 'request-log-upkeep' }).first();
    expect(new Date(lease.leased_until).getTime()).to.be.at.most(Date.now() + 1_000);
  });

  it('creates the partitions of this month and the next ones, moving rows the default partition holds for a month into it', async () => {
    const ahead = monthsFromNow(PARTITIONS_AHEAD);
    const name = partitionOf(ahead);
    await gateway.db.raw(`drop table if exists ${name}`);
    const early = newRequestId(ahead.getTime() + 3_600_000); // a replica whose clock ran ahead
    gateway.services.requestLogs.write({
      ...EMPTY_LOG_FIELDS,
      request_id: early,
      customer_id: mine.customerId,
      key_id: null,
      endpoint: 'models_list',
      status: 200,
      error_type: null,
      latency_ms: 1,
      created_at: requestIdTime(early),
    });
    await gateway.services.requestLogs.flush();
    expect(await gateway.services.requestLogs.upkeep.preparePartitions()).to.equal(1);
    const all = await partitions();
    for (let n = 0; n <= PARTITIONS_AHEAD; n++) expect(all).to.include(partitionOf(monthsFromNow(n)));
    expect(all).to.include('request_logs_default');
    expect((await gateway.db.raw(`select tableoid::regclass::text as p from request_logs where request_id = ?`, [early])).rows[0].p).to.equal(name);
    expect(await gateway.services.requestLogs.upkeep.preparePartitions(), 'nothing missing').to.equal(0);
  });

  it('finds a receipt by id in one partition with one index probe (EXPLAIN), and dates a request by its id as the database does', async () => {
    const id = await message();
    const { rows: plan } = await gateway.db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
      `explain select * from request_logs where request_id = ? and created_at = request_log_created_at(?)`,
      [id, id],
    );
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).to.match(/Subplans Removed: \d+/);
    expect(text.match(/Index Scan/g), text).to.have.length(1);
    expect(text).to.include(`on ${partitionOf(new Date())}`);
    const ids = [
      id,
      newRequestId(0),
      newRequestId(Date.UTC(2099, 11, 31, 23, 59, 59, 999)),
      'req_short',
      'vt_0123456789abcdefghijklmn',
      `req_${'z'.repeat(24)}`,
    ];
    for (const candidate of ids) {
      const { rows: found } = await gateway.db.raw(`select request_log_created_at(?) as at`, [candidate]);
      expect(new Date(found[0].at).toISOString(), candidate).to.equal(requestIdTime(candidate).toISOString());
    }
  });
});
