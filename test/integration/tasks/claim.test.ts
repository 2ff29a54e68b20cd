// The claim takes at most its limit of due tasks, whatever plan the database picks for it. With
// statistics gathered while the task table held one row (an autovacuum between two tests does
// that), the planner put the limited, locking subquery of the claim on the inner side of a nested
// loop: run again for each row of the table, each run skipping the rows this statement had
// already updated and taking the next ones, so one claim of 4 leased 7 to 10 of 11 due tasks.
import { expect } from 'chai';
import { claimDue, claimDueNotingWaiting } from '../../../src/tasks/repo.ts';
import { fundedCustomer } from '../../helpers/factories.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

describe('the claim of due tasks', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;

  before(async () => {
    gateway = await startTestGateway({ env: { VIDEO_POLLER: 'false' } });
  });
  beforeEach(async () => {
    await gateway.reset();
    ({ key } = await fundedCustomer(gateway, { balance: '50.00' }));
  });
  after(async () => gateway?.close());

  async function createTask(n: number): Promise<void> {
    const created = await videoCalls(gateway, key).create({ model: 'sandbox/seedance', seconds: 5, resolution: '720p', prompt: `task ${n}` });
    expect(created.status).to.equal(202);
  }

  /** How many rows the planner believes the task table holds. */
  async function plannedRows(): Promise<number> {
    const { rows } = await gateway.db.raw<{ rows: Array<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }> }>(
      'explain (format json) select id from video_tasks',
    );
    return rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
  }

  /**
   * `count` tasks due now, on statistics gathered when the table held the first among the dead rows
   * of many (as a suite leaves it: each reset deletes what its test made, and autovacuum analyzes it).
   */
  async function dueOnStaleStatistics(count: number): Promise<void> {
    await createTask(0);
    const [{ id }] = await gateway.db('video_tasks').select('id');
    await gateway.db.raw(
      `insert into video_tasks
       select (jsonb_populate_record(t, jsonb_build_object('id', t.id || '_' || n, 'idempotency_key', null))).*
         from video_tasks t, generate_series(1, 200) as n`,
    );
    await gateway.db('video_tasks').whereNot({ id }).delete();
    await gateway.db.raw('analyze video_tasks');
    for (let n = 1; n < count; n++) await createTask(n);
    await gateway.db('video_tasks').update({ next_poll_at: new Date(Date.now() - 1000) });
    expect(await plannedRows()).to.equal(1); // the statistics this test is about: one row where there are `count`
  }

  const leased = async () => (await gateway.db('video_tasks').whereNotNull('lease_until').count<Array<{ count: string }>>('* as count'))[0]!.count;

  it('leases at most its limit, and returns what it leased', async () => {
    await dueOnStaleStatistics(11);

    const claimed = await claimDue(gateway.db, 4, 60_000);

    expect(claimed).to.have.length(4);
    expect(Number(await leased())).to.equal(4);
    expect(claimed.every((task) => task.attempts === 1)).to.equal(true);
  });

  it('claims as much when it also notes whether a task waits', async () => {
    await dueOnStaleStatistics(11);

    const { tasks, waiting } = await claimDueNotingWaiting(gateway.db, 4, 60_000);

    expect(tasks).to.have.length(4);
    expect(waiting).to.equal(false);
    expect(Number(await leased())).to.equal(4);
  });

  it('claim after claim takes its limit, then the rest, then nothing', async () => {
    await dueOnStaleStatistics(11);

    expect(await claimDue(gateway.db, 4, 60_000)).to.have.length(4);
    expect(await claimDue(gateway.db, 4, 60_000)).to.have.length(4);
    expect(await claimDue(gateway.db, 4, 60_000)).to.have.length(3);
    expect(await claimDue(gateway.db, 4, 60_000)).to.have.length(0);
    expect(Number(await leased())).to.equal(11);
  });
});
