import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('request holds (per-request reservations): one end on every path, and holds whose process died', () => {
  let gateway: TestGateway;
  let customerId: string;
  let keyId: string;
  before(async () => {
    // Stale after 5 s without a heartbeat: orphans below are backdated 10 s, and a live process's
    // heartbeat (every 200 ms) is not 5 s late however loaded the machine.
    gateway = await startTestGateway({ env: { STALE_RESERVATION_SECONDS: '5', HEARTBEAT_MS: '200', GRANTS: 'false' } });
    ({ customerId, keyId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  const orphan = async (ref: string, progress: string | null) => {
    const { ledger } = gateway.services;
    const purpose = { request_id: ref, model: 'sandbox/claude-haiku', endpoint: 'messages_create', key_id: keyId };
    expect(await ledger.reserve({ ref, customerId, bound: { amount: 500_000n }, purpose, owner: 'gw_deadprocess', kind: 'request' })).to.include({
      amount: 500_000n,
    });
    await gateway
      .db('reservations')
      .where({ ref })
      .update({
        created_at: new Date(Date.now() - 10_000),
        progress: progress ? JSON.stringify({ charge: progress, usage: { input_tokens: 100, output_tokens: 20 } }) : null,
      });
  };
  const reconciliation = async () => (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;

  it('ends a hold its request left open: released when nothing was delivered, settled at the checkpoint otherwise', async () => {
    const { holds } = gateway.services;
    const input = (ref: string) => ({ ref, customerId, bound: { amount: 300_000n }, purpose: { request_id: ref } });
    const thrown = await holds
      .scope(input('req_scope_throw'), async () => {
        throw new Error('a bug after the reserve');
      })
      .catch((error: Error) => error.message);
    expect(thrown).to.equal('a bug after the reserve');
    await holds.scope(input('req_scope_forgot'), async (hold) => hold.checkpoint(120_000n));
    await gateway.settled();
    const rows = await gateway.db('reservations').whereIn('ref', ['req_scope_throw', 'req_scope_forgot']).orderBy('ref');
    expect(rows.map((r: any) => [r.ref, r.status])).to.deep.equal([
      ['req_scope_forgot', 'settled'],
      ['req_scope_throw', 'released'],
    ]);
    const settle = await gateway.db('ledger_entries').where({ reference: 'settle:req_scope_forgot' }).first();
    expect(settle.amount).to.equal(120_000n);
    expect(holds.live()).to.equal(0);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('reports holds whose process is gone as not ok, lists them, and lets operators and the sweeper end them once', async () => {
    await orphan('req_orphan_delivered', '120000');
    await orphan('req_orphan_silent', null);
    const before = await reconciliation();
    expect(before.ok).to.equal(false);
    expect(before.mismatches).to.deep.equal([]);
    expect(before.stale_holds).to.deep.include({ count: 2, amount: '1.000000' });

    const listed = await gateway.admin('GET', '/admin/v1/reservations?stale=true');
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((h: any) => [h.ref, h.owner_alive, h.delivered])).to.have.deep.members([
      ['req_orphan_delivered', false, '0.120000'],
      ['req_orphan_silent', false, null],
    ]);

    const released = await gateway.admin('POST', '/admin/v1/reservations/req_orphan_silent/resolve', {
      action: 'release',
      actor: 'ops',
      reason: 'never reached the provider',
    });
    expect(released.status).to.equal(200);
    expect(released.body).to.include({ status: 'released', kind: 'request' });
    const again = await gateway.admin('POST', '/admin/v1/reservations/req_orphan_silent/resolve', { action: 'settle', actor: 'ops', reason: 'twice' });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('already_released');
    expect((await gateway.admin('POST', '/admin/v1/reservations/req_nothing/resolve', { action: 'release', actor: 'ops', reason: 'x' })).status).to.equal(404);

    expect(await gateway.services.sweeper.sweep()).to.equal(1);
    expect(await gateway.services.sweeper.sweep()).to.equal(0);
    const settle = await gateway.db('ledger_entries').where({ reference: 'settle:req_orphan_delivered' }).first();
    expect(settle.amount).to.equal(120_000n);
    expect(settle.purpose).to.include({ ending: 'owner_gone', swept: true });
    const [log] = await gateway.requestLogs('endpoint=messages_create');
    expect(log).to.include({ request_id: 'req_orphan_delivered', interrupted: true, status: 499, cost: '0.120000', key_id: keyId });
    const after = await reconciliation();
    expect(after).to.deep.include({ ok: true, stale_holds: { count: 0, amount: '0.000000', refs: [] } });
    expect((await gateway.wallet(customerId)).reserved).to.equal('0.000000');
  });

  it('an operator settling a hold below what was delivered records the difference as waived; a late report keeps it waived', async () => {
    await orphan('req_orphan_waived', '120000');
    const settled = await gateway.admin('POST', '/admin/v1/reservations/req_orphan_waived/resolve', {
      action: 'settle',
      amount: '0.05',
      actor: 'ops',
      reason: 'goodwill: the answer was cut',
    });
    expect(settled.status).to.equal(200);
    const settle = await gateway.db('ledger_entries').where({ reference: 'settle:req_orphan_waived' }).first();
    expect(settle.amount).to.equal(50_000n);
    expect(settle.purpose).to.deep.include({ resolved_by: 'ops', waived: '70000', priced: { amount: '120000' } });
    const window = `since=${new Date(Date.now() - 60_000).toISOString()}`;
    expect((await gateway.admin('GET', `/admin/v1/ledger/reconciliation?${window}`)).body).to.deep.include({ ok: true });
    // The owner reports 0.15 delivered after all: the difference above what was charged and waived is posted.
    const late = await gateway.services.ledger.settle({ ref: 'req_orphan_waived', charge: { amount: 150_000n } });
    expect(late).to.deep.include({ charged: 80_000n, debt: 0n, replayed: false });
    const trueUp = await gateway.db('ledger_entries').where({ reference: 'true_up:req_orphan_waived' }).first();
    expect(trueUp.amount).to.equal(30_000n);
    const report = (await gateway.admin('GET', `/admin/v1/ledger/reconciliation?${window}`)).body;
    expect(report.ok).to.equal(true);
    expect(report.priced.differences).to.deep.equal([]);
  });

  it('never sweeps the holds of a process that is still heartbeating, however old', async () => {
    const { holds } = gateway.services;
    const hold = await holds.open({ ref: 'req_long_stream', customerId, bound: { amount: 100_000n }, purpose: { request_id: 'req_long_stream' } });
    if (typeof hold === 'string') throw new Error(hold);
    await gateway
      .db('reservations')
      .where({ ref: 'req_long_stream' })
      .update({ created_at: new Date(Date.now() - 3_600_000) });
    expect(await gateway.services.sweeper.sweep()).to.equal(0);
    expect((await reconciliation()).ok).to.equal(true);
    await hold.release('done');
  });
});
