// The poller's throughput parts, against the real database and the simulated Ark upstream: the
// drain claims ahead of its lanes until a claim comes back short, and status changes that arrive
// together share one statement while each keeps its own guard and outcome.
import { expect } from 'chai';
import { videoTaskKind } from '../../../src/domain/videos/kind.ts';
import { createLogger } from '../../../src/logger.ts';
import { taskKinds } from '../../../src/tasks/kind.ts';
import { TaskStatus as VideoStatus } from '../../../src/tasks/model.ts';
import { batchedTransitions, claimDue, giveBack, NOW } from '../../../src/tasks/repo.ts';
import { createTaskWorker as createVideoWorker } from '../../../src/tasks/worker.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/** The sample catalogue without seedance's free seconds, so every completed task is charged its full price. */
const catalogueWithoutFreeSeconds = (): string => sampleCatalogueWith({ withoutFreeQuota: ['sandbox/seedance'] });

describe('video poller batching', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: catalogueWithoutFreeSeconds(), env: { VIDEO_POLLER: 'false' } });
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key, customerId } = await fundedCustomer(gateway, { balance: '50.00' }));
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
  after(async () => gateway?.close());

  /** `count` accepted tasks the simulator finishes at the first poll (every fourth fails), all due now. */
  async function dueTasks(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      const response = await fetch(`${gateway.url}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'sandbox/seedance',
          seconds: 5,
          resolution: '720p',
          prompt: `task ${n} [[sim queued_ms=0 running_ms=0${n % 4 === 3 ? ' fail' : ''}]]`,
        }),
      });
      expect(response.status).to.equal(202);
      ids.push(((await response.json()) as { id: string }).id);
    }
    await gateway.db('video_tasks').update({ next_poll_at: new Date(Date.now() - 1000) });
    return ids;
  }

  const worker = (batchSize: number, concurrency: number) =>
    createVideoWorker({
      db: gateway.db,
      ledger: gateway.services.ledger,
      logger: createLogger('silent'),
      catalogue: gateway.services.catalogue,
      kinds: taskKinds(videoTaskKind),
      batchSize,
      concurrency,
    });

  it('drain settles every due task in one call, batch after batch; processBatch only one batch', async () => {
    const ids = await dueTasks(11);

    expect(await worker(4, 3).processBatch()).to.equal(4);
    expect(await worker(4, 3).drain()).to.equal(7);
    expect(await worker(4, 3).drain()).to.equal(0);

    const rows = await gateway.db('video_tasks').whereIn('id', ids).select('id', 'status', 'billed_amount');
    const completed = rows.filter((r) => r.status === 'completed');
    expect(completed).to.have.length(9); // tasks 0-2, 4-6, 8-10
    expect(rows.filter((r) => r.status === 'failed')).to.have.length(2);
    for (const row of completed) expect(String(row.billed_amount)).to.equal('500000'); // 5 s at 0.10 = 0.50
    const wallet = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    expect(wallet).to.include({ debits: '4.500000', reserved: '0.000000', available: '45.500000' }); // 9 x 0.50
  });

  it('an idle tick is one statement on the tasks (the claim, noting whether any task waits); a waiting task makes the tick dispatch it', async () => {
    const statements: string[] = [];
    const record = (query: { sql: string }) => void (/video_tasks|video_provider_queues/.test(query.sql) && statements.push(query.sql));
    gateway.db.on('query', record);
    try {
      expect(await worker(4, 3).drain()).to.equal(0);
      expect(statements).to.have.length(1);

      const [id] = await dueTasks(1);
      await gateway
        .db('video_tasks')
        .where({ id })
        .update({ status: VideoStatus.Waiting, next_poll_at: new Date(Date.now() + 3_600_000) });
      statements.length = 0;
      expect(await worker(4, 3).drain()).to.equal(0); // nothing due: it was waiting
      expect(statements.length).to.be.greaterThan(1);
      expect((await gateway.db('video_tasks').where({ id }).first()).status).to.equal(VideoStatus.Queued); // sent to the provider
    } finally {
      gateway.db.off('query', record);
    }
  });

  it('a drain told to stop claims nothing more and gives back what it claimed but did not start', async () => {
    const ids = await dueTasks(12);
    const stop = new AbortController();
    const ledger = gateway.services.ledger;
    // The first task that ends (settled or released) stops the drain: its lane finishes that task;
    // the other three claimed stay unpolled.
    const stopping = {
      ...ledger,
      settle: (input: Parameters<typeof ledger.settle>[0]) => (stop.abort(), ledger.settle(input)),
      release: (input: Parameters<typeof ledger.release>[0]) => (stop.abort(), ledger.release(input)),
    };
    const drained = createVideoWorker({
      db: gateway.db,
      ledger: stopping,
      logger: createLogger('silent'),
      catalogue: gateway.services.catalogue,
      kinds: taskKinds(videoTaskKind),
      batchSize: 4,
      concurrency: 1,
    });
    expect(await drained.drain(stop.signal)).to.equal(1);

    const rows = await gateway.db('video_tasks').whereIn('id', ids).select('id', 'status', 'lease_until', 'attempts');
    expect(rows.filter((r) => r.status === 'completed' || r.status === 'failed')).to.have.length(1);
    const waiting = rows.filter((r) => r.status === 'queued');
    expect(waiting).to.have.length(11);
    for (const row of waiting) expect(row).to.include({ lease_until: null, attempts: 0 }); // given back at once, as never claimed
    // Another process takes them straight away.
    expect(await worker(50, 4).drain()).to.equal(11);
    const statuses = (await gateway.db('video_tasks').whereIn('id', ids).select('status')).map((r) => r.status as string);
    expect(statuses.filter((status) => status === 'completed' || status === 'failed')).to.have.length(12);
  });

  it('changes made together share one statement, each with its own guard and outcome', async () => {
    const [a, b, c, d, e, f] = await dueTasks(6);
    const updates: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/^\s*update "?video_tasks"?\s/i.test(q.sql)) updates.push(q.sql);
    };
    gateway.db.on('query', onQuery);
    const transition = batchedTransitions(gateway.db);
    const live = [VideoStatus.Queued, VideoStatus.InProgress];
    let outcomes: Array<boolean | string>;
    try {
      outcomes = await Promise.all(
        [
          transition(a!, live, { status: VideoStatus.InProgress, progress: 40, result: '{"seen":[1,2],"note":"ok"}' }),
          transition(b!, live, { status: VideoStatus.InProgress, progress: 60, result: '{"seen":[]}' }),
          // a again: waits for the next statement, where its guard (queued) no longer holds
          transition(a!, VideoStatus.Queued, { status: VideoStatus.Failed }),
          transition(c!, VideoStatus.Completed, { status: VideoStatus.Failed }), // not completed: no change
          transition(d!, live, { status: VideoStatus.Cancelled, completed_at: NOW, error: '{"code":"x","message":"y"}' }),
          // the same shape as b's, with a value the column cannot hold: e fails alone, f still applies
          transition(e!, live, { status: VideoStatus.InProgress, progress: 2 ** 40, result: '{}' }),
          transition(f!, live, { status: VideoStatus.InProgress, progress: 70, result: '{}' }),
        ].map((p) => p.catch((error: Error) => `rejected: ${error.message}`)),
      );
    } finally {
      gateway.db.off('query', onQuery);
    }
    expect(outcomes.slice(0, 5)).to.deep.equal([true, true, false, false, true]);
    expect(outcomes[5]).to.match(/^rejected: .*out of range/);
    expect(outcomes[6]).to.equal(true);

    const rows = new Map((await gateway.db('video_tasks').select('*')).map((r) => [r.id, r]));
    expect(rows.get(a!)).to.include({ status: 'in_progress', progress: 40 });
    expect(rows.get(a!).result).to.deep.equal({ seen: [1, 2], note: 'ok' }); // stored as JSON, not as a string
    expect(rows.get(b!)).to.include({ status: 'in_progress', progress: 60 });
    expect(rows.get(c!).status).to.equal('queued');
    expect(rows.get(d!).status).to.equal('cancelled');
    expect(rows.get(d!).error).to.deep.equal({ code: 'x', message: 'y' });
    expect(Math.abs(new Date(rows.get(d!).completed_at).getTime() - Date.now())).to.be.below(60_000);
    expect(rows.get(e!)).to.include({ status: 'queued' });
    expect(rows.get(f!)).to.include({ status: 'in_progress', progress: 70 });

    // Round one: a+b+e+f (one shape; it fails on e, then each alone: 4), c, d; round two: a again.
    expect(updates.filter((sql) => sql.includes('jsonb_populate_recordset'))).to.have.length(4);
    expect(updates).to.have.length(8);

    // Everything these tasks reserved goes back; the ledger still agrees (afterEach).
    for (const id of [a, b, c, d, e, f]) await gateway.services.ledger.release({ ref: id!, purpose: { reason: 'test' } });
  });
  it('several changes of one shape apply in one statement, except where the guard no longer holds', async () => {
    const [a, b, c, d] = await dueTasks(4);
    await gateway.db('video_tasks').where({ id: b }).update({ status: VideoStatus.InProgress });
    const updates: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/^\s*update "?video_tasks"?\s/i.test(q.sql)) updates.push(q.sql);
    };
    gateway.db.on('query', onQuery);
    const transition = batchedTransitions(gateway.db);
    let outcomes: Array<boolean | string>;
    try {
      outcomes = await Promise.all(
        [
          transition(a!, VideoStatus.Queued, { status: VideoStatus.InProgress, progress: 10, result: '{"n":1}' }),
          transition(b!, VideoStatus.Queued, { status: VideoStatus.InProgress, progress: 20, result: '{"n":2}' }), // in progress already
          transition(c!, VideoStatus.Queued, { status: VideoStatus.InProgress, progress: 30, result: '{"n":3}' }),
        ].map((p) => p.catch((error: Error) => `rejected: ${error.message}`)),
      );
      // Text that is not one JSON value cannot reach another task's row: it is refused alone.
      const smuggled = `{}},{"id":${JSON.stringify(d)},"status":"completed"`;
      const live = [VideoStatus.Queued, VideoStatus.InProgress];
      outcomes.push(await transition(c!, live, { status: VideoStatus.InProgress, result: smuggled }).catch(() => 'rejected'));
    } finally {
      gateway.db.off('query', onQuery);
    }
    expect(outcomes).to.deep.equal([true, false, true, 'rejected']);
    expect(updates.filter((sql) => sql.includes('jsonb_populate_recordset'))).to.have.length(1); // a+b+c; the smuggler never reaches SQL
    const rows = new Map((await gateway.db('video_tasks').select('*')).map((r) => [r.id, r]));
    expect(rows.get(a!)).to.include({ status: 'in_progress', progress: 10 });
    expect(rows.get(a!).result).to.deep.equal({ n: 1 });
    expect(rows.get(b!).progress).to.not.equal(20);
    expect(rows.get(c!)).to.include({ status: 'in_progress', progress: 30 });
    expect(rows.get(c!).result).to.deep.equal({ n: 3 });
    expect(rows.get(d!).status).to.equal('queued');
    for (const id of [a, b, c, d]) await gateway.services.ledger.release({ ref: id!, purpose: { reason: 'test' } });
  });

  it('gives back only a claim that is still the last one, and does not poll a task whose lease ran out', async () => {
    const [a, b] = await dueTasks(2);
    // The claim takes the earliest due first: a, strictly, so both claims below meet the same task
    // (with equal times the order of ties is the index's, which an update of the row can change).
    await gateway
      .db('video_tasks')
      .where({ id: a! })
      .update({ next_poll_at: new Date(Date.now() - 2000) });
    const [first] = await claimDue(gateway.db, 1, 1); // a 1 ms lease: gone at once
    await new Promise((r) => setTimeout(r, 20));
    const [again] = await claimDue(gateway.db, 1, 60_000); // another process claims it anew
    expect(again!.id).to.equal(first!.id);
    await giveBack(gateway.db, [first!]); // the first claim's give-back must not end the second's lease
    const row = await gateway.db('video_tasks').where({ id: first!.id }).first();
    expect(row.attempts).to.equal(2);
    expect(row.lease_until).to.not.equal(null);
    await giveBack(gateway.db, [again!]);
    expect(await gateway.db('video_tasks').where({ id: first!.id }).first()).to.include({ attempts: 1, lease_until: null });

    // Leases shorter than a poll: the second task claimed ahead has lost its lease when a lane is
    // free for it, and is left for the next claim rather than polled under someone else's.
    const polled: string[] = [];
    const short = createVideoWorker({
      db: gateway.db,
      ledger: gateway.services.ledger,
      logger: createLogger('silent'),
      catalogue: gateway.services.catalogue,
      kinds: taskKinds(videoTaskKind),
      batchSize: 2,
      concurrency: 1,
      // Long enough that a stalled claim or poll cannot outlast it before the first task's lane
      // check, short enough that the second task's lease surely ends during the slow settle.
      leaseMs: 1000,
    });
    const slowLedger = gateway.services.ledger;
    const original = slowLedger.settle;
    slowLedger.settle = async (input) => (polled.push(input.ref), await new Promise((r) => setTimeout(r, 1500)), original.call(slowLedger, input));
    try {
      await gateway.db('video_tasks').update({ lease_until: null });
      expect(await short.processBatch()).to.equal(1);
    } finally {
      slowLedger.settle = original;
    }
    expect(polled).to.have.length(1);
    const statuses = (await gateway.db('video_tasks').whereIn('id', [a!, b!]).select('status')).map((r) => r.status as string).sort();
    expect(statuses).to.deep.equal(['completed', 'queued']);
    expect(await worker(4, 1).drain()).to.equal(1); // the one left is due and claimable
  });
});
