import { expect } from 'chai';
import type { Knex } from 'knex';
import { createLedger, type Ledger } from '../../../src/ledger/service.ts';
import { getTestDatabase, resetDatabase } from '../../helpers/db.ts';
import { insertCustomer } from '../../helpers/factories.ts';

// A sweeper's end of a live process's hold is a floor (issue 22, 1): when the owner reports what it
// really delivered, the difference is posted once under its own reference (`true_up:<ref>`), from
// the available balance, and what the balance cannot cover is recorded as debt, never dropped. A
// later credit repays the debt first.
describe('late reports after a sweeper ended a hold', () => {
  let db: Knex;
  let ledger: Ledger;
  let customer: string;

  beforeEach(async () => {
    db = await getTestDatabase();
    await resetDatabase(db);
    ledger = createLedger({ db });
    customer = await insertCustomer(db);
  });

  const swept = { ending: 'owner_gone', estimated: true, swept: true };
  const journal = async () => db('ledger_entries').where({ customer_id: customer }).orderBy('id');
  const wallet = async () => db('wallets').where({ customer_id: customer }).first();
  const reconciled = async () => expect(await ledger.reconcile()).to.deep.equal([]);

  /** A grant of `amount` held for the customer, as a process's grow would leave it. */
  async function grant(ref: string, amount: bigint): Promise<void> {
    const reserved = await ledger.reserve({ ref, customerId: customer, bound: { amount }, purpose: {} });
    expect(reserved).to.not.be.a('string');
    await db('reservations').where({ ref }).update({ kind: 'grant' });
  }

  it('a request hold settled at its checkpoint, then settled by its owner: the difference is posted once', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000_000n });
    await ledger.reserve({ ref: 'req_a', customerId: customer, bound: { amount: 300_000n }, purpose: {} });
    expect(await ledger.settle({ ref: 'req_a', charge: { amount: 40_000n }, purpose: swept })).to.deep.include({ charged: 40_000n });
    const late = await ledger.settle({ ref: 'req_a', charge: { amount: 250_000n }, purpose: { ending: 'complete', estimated: false } });
    expect(late).to.deep.include({ charged: 250_000n, debt: 0n, replayed: false });
    // The owner's outbox may send it again; the sweeper may run again: neither posts anything.
    expect(await ledger.settle({ ref: 'req_a', charge: { amount: 250_000n }, purpose: { ending: 'complete' } })).to.deep.include({
      charged: 250_000n,
      replayed: true,
    });
    expect(await ledger.settle({ ref: 'req_a', charge: { amount: 40_000n }, purpose: swept })).to.deep.include({ charged: 40_000n, replayed: true });
    const trueUps = (await journal()).filter((e) => e.kind === 'true_up');
    expect(trueUps).to.have.length(1);
    expect(trueUps[0]).to.include({ reference: 'true_up:req_a', amount: 210_000n, debits_delta: 210_000n, debt_delta: 0n });
    expect(await wallet()).to.include({ debits_posted: 250_000n, debits_pending: 0n, debt: 0n });
    await reconciled();
  });

  it('a request hold released by the sweeper (nothing checkpointed), then settled by its owner: all of it is charged', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000_000n });
    await ledger.reserve({ ref: 'req_b', customerId: customer, bound: { amount: 300_000n }, purpose: {} });
    await ledger.release({ ref: 'req_b', purpose: { reason: 'owner gone before anything was delivered', swept: true } });
    expect(await ledger.settle({ ref: 'req_b', charge: { amount: 120_000n }, purpose: { ending: 'complete' } })).to.deep.include({ charged: 120_000n });
    // The owner's own release of an ended hold is still refused: nothing to true up.
    expect(await wallet()).to.include({ debits_posted: 120_000n, debits_pending: 0n });
    await reconciled();
  });

  it('a grant swept at its checkpoints: the owner’s charges post the differences; what the balance cannot cover becomes debt, repaid by the next top-up', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 500_000n });
    await grant('gr_x', 500_000n);
    // The sweeper charges each open request its checkpoint and releases the rest of the grant.
    expect(await ledger.charge({ ref: 'req_1', grantRef: 'gr_x', customerId: customer, amount: 10_000n, purpose: swept })).to.deep.include({
      charged: 10_000n,
      replayed: false,
    });
    expect(await ledger.charge({ ref: 'req_2', grantRef: 'gr_x', customerId: customer, amount: 10_000n, purpose: swept })).to.deep.include({
      charged: 10_000n,
    });
    await ledger.release({ ref: 'gr_x', purpose: { reason: 'owner gone', swept: true } });
    // Meanwhile the customer spends most of the balance elsewhere.
    await ledger.reserve({ ref: 'req_other', customerId: customer, bound: { amount: 400_000n }, purpose: {} });
    await ledger.settle({ ref: 'req_other', charge: { amount: 400_000n } });
    // The owner's real charges arrive: 90,000 and 150,000 delivered; 80,000 is left to debit.
    const first = await ledger.charge({ ref: 'req_1', grantRef: 'gr_x', customerId: customer, amount: 90_000n, purpose: { ending: 'complete' } });
    expect(first).to.deep.include({ charged: 90_000n, debt: 0n, replayed: false });
    const second = await ledger.charge({ ref: 'req_2', grantRef: 'gr_x', customerId: customer, amount: 150_000n, purpose: { ending: 'complete' } });
    expect(second).to.deep.include({ charged: 10_000n + 0n, debt: 140_000n - 0n, replayed: false });
    expect(await ledger.charge({ ref: 'req_2', grantRef: 'gr_x', customerId: customer, amount: 150_000n, purpose: { ending: 'complete' } })).to.deep.include({
      replayed: true,
    });
    expect(await wallet()).to.include({ credits_posted: 500_000n, debits_posted: 500_000n, debits_pending: 0n, debt: 140_000n });
    expect(await ledger.balance(customer)).to.deep.include({ available: 0n, debt: 140_000n });
    expect(await ledger.debtOutstanding()).to.deep.equal({ customers: 1, amount: 140_000n });
    await reconciled();

    await ledger.topUp({ ref: 't2', customerId: customer, amount: 1_000_000n });
    const repaid = (await journal()).filter((e) => e.kind === 'debt_repaid');
    expect(repaid).to.have.length(1);
    expect(repaid[0]).to.include({ reference: 'debt_repaid:top_up:t2', amount: 140_000n, debits_delta: 140_000n, debt_delta: -140_000n });
    expect(await ledger.balance(customer)).to.deep.include({ available: 860_000n, debt: 0n });
    await reconciled();
  });

  it('the owner’s charge first, the sweeper’s after: the sweeper’s is a replay and posts nothing', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 500_000n });
    await grant('gr_y', 200_000n);
    await ledger.charge({ ref: 'req_3', grantRef: 'gr_y', customerId: customer, amount: 70_000n, purpose: { ending: 'complete' } });
    expect(await ledger.charge({ ref: 'req_3', grantRef: 'gr_y', customerId: customer, amount: 5_000n, purpose: swept })).to.deep.include({
      charged: 70_000n,
      replayed: true,
    });
    expect((await journal()).filter((e) => e.kind === 'true_up')).to.have.length(0);
    expect(await wallet()).to.include({ debits_posted: 70_000n });
    await reconciled();
  });

  it('an owner reporting less than the checkpoint charged gets the difference back', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 500_000n });
    await grant('gr_z', 200_000n);
    await ledger.charge({ ref: 'req_4', grantRef: 'gr_z', customerId: customer, amount: 60_000n, purpose: swept });
    expect(await ledger.charge({ ref: 'req_4', grantRef: 'gr_z', customerId: customer, amount: 45_000n, purpose: { ending: 'complete' } })).to.deep.include({
      charged: 45_000n,
    });
    expect(await wallet()).to.include({ debits_posted: 45_000n, debt: 0n });
    await reconciled();
  });

  it('a charge after its grant was given back, beyond the balance: the rest is debt, not dropped', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 50_000n });
    await grant('gr_w', 50_000n);
    await ledger.release({ ref: 'gr_w', purpose: { reason: 'owner gone', swept: true } });
    const charged = await ledger.charge({ ref: 'req_5', grantRef: 'gr_w', customerId: customer, amount: 80_000n, purpose: { ending: 'complete' } });
    expect(charged).to.deep.include({ charged: 50_000n, debt: 30_000n, fromGrant: false });
    expect(await wallet()).to.include({ debits_posted: 50_000n, debt: 30_000n });
    await reconciled();
  });

  it("records the upstream cost of a late report as the report's less the floor's, so a request's entries add up to what it cost (issue 37)", async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000_000n });
    const cost = (amount: string | null) => ({ upstream_cost: { amount, provider: 'sandbox-anthropic', upstream_model: 'claude-x' } });
    // A request hold, swept at a checkpoint that cost 20,000 upstream; the owner reports 150,000.
    await ledger.reserve({ ref: 'req_c', customerId: customer, bound: { amount: 300_000n }, purpose: {} });
    await ledger.settle({ ref: 'req_c', charge: { amount: 40_000n }, purpose: { ...swept, ...cost('20000') } });
    await ledger.settle({ ref: 'req_c', charge: { amount: 250_000n }, purpose: { ending: 'complete', ...cost('150000') } });
    // A grant's request, swept at a checkpoint without a known cost: the true-up carries all of the report's.
    await grant('gr_c', 200_000n);
    await ledger.charge({ ref: 'req_d', grantRef: 'gr_c', customerId: customer, amount: 10_000n, purpose: { ...swept, ...cost(null) } });
    await ledger.release({ ref: 'gr_c', purpose: { reason: 'owner gone', swept: true } });
    await ledger.charge({ ref: 'req_d', grantRef: 'gr_c', customerId: customer, amount: 30_000n, purpose: { ending: 'complete', ...cost('18000') } });
    const costs = (await journal())
      .filter((e) => ['settle', 'charge', 'true_up'].includes(e.kind))
      .map((e) => [e.reference, (e.purpose as any).upstream_cost?.amount ?? null]);
    expect(costs).to.deep.equal([
      ['settle:req_c', '20000'],
      ['true_up:req_c', '130000'],
      ['charge:req_d', null],
      ['true_up:req_d', '18000'],
    ]);
    await reconciled();
  });
});
