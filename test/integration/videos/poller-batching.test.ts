// The poller's throughput parts, against the real database and the simulated Ark upstream: the
// drain claims ahead of its lanes until a claim comes back short, and status changes that arrive
// together share one statement while each keeps its own guard and outcome.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { batchedTransitions, NOW } from '../../../src/domain/videos/repo.ts';
import { VideoStatus } from '../../../src/domain/videos/model.ts';
import { createVideoWorker } from '../../../src/domain/videos/worker.ts';
import { createLogger } from '../../../src/logger.ts';
import { SAMPLE_CATALOGUE, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/** The sample catalogue without seedance's free seconds, so every completed task is charged its full price. */
function catalogueWithoutFreeSeconds(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-')), 'catalogue.yaml');
  fs.writeFileSync(file, fs.readFileSync(SAMPLE_CATALOGUE, 'utf8').replace('    free_quota: {amount: 10, unit: seconds, period: day}\n', ''));
  return file;
}

describe('video poller batching', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;

  beforeEach(async () => {
    gateway = await startTestGateway({ cataloguePath: catalogueWithoutFreeSeconds(), env: { VIDEO_POLLER: 'false' } });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '50.00', reference: 'fund' });
  });
  afterEach(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

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
});
