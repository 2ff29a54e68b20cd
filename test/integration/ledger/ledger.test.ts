import { expect } from 'chai';
import type { Knex } from 'knex';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { createLedger, type Ledger } from '../../../src/ledger/service.ts';
import { tokenLines } from '../../../src/pricing/cost.ts';
import { getTestDatabase, resetDatabase } from '../../helpers/db.ts';
import { insertCustomer } from '../../helpers/factories.ts';

const sonnet = { input_per_mtok: '3.00', output_per_mtok: '15.00' };

describe('ledger', () => {
  let db: Knex;
  let ledger: Ledger;
  let customer: string;
  let clock: Date;

  beforeEach(async () => {
    db = await getTestDatabase();
    await resetDatabase(db);
    clock = new Date('2026-11-22T12:00:00Z');
    ledger = createLedger({ db, now: () => clock });
    customer = await insertCustomer(db);
  });

  const balance = async () => ledger.balance(customer);
  const entries = async () => db('ledger_entries').where({ customer_id: customer }).orderBy('id');

  it('tops up once per reference; a reused reference with another amount is refused', async () => {
    const first = await ledger.topUp({ ref: 'inv-1', customerId: customer, amount: 10_000_000n });
    expect(first).to.have.property('replayed', false);
    expect(await ledger.topUp({ ref: 'inv-1', customerId: customer, amount: 10_000_000n })).to.have.property('replayed', true);
    expect(await ledger.topUp({ ref: 'inv-1', customerId: customer, amount: 20_000_000n })).to.equal(LedgerError.ReferenceConflict);
    expect(await ledger.topUp({ ref: 'inv-2', customerId: 'cus_nobody', amount: 1n })).to.equal(LedgerError.CustomerNotFound);
    for (const bad of [0n, -1n, 10n ** 18n])
      expect(await ledger.topUp({ ref: `bad-${bad}`, customerId: customer, amount: bad })).to.equal(LedgerError.InvalidAmount);
    expect(await balance()).to.deep.equal({ credits: 10_000_000n, debits: 0n, reserved: 0n, available: 10_000_000n, debt: 0n });
    expect(await entries()).to.have.length(1);
  });

  it('refuses a top-up past what the wallet can record, posting nothing (not a 500)', async () => {
    await ledger.topUp({ ref: 'inv-1', customerId: customer, amount: 1_000_000n });
    const nearLimit = 2n ** 63n - 1n - 500_000_000_000_000n; // as after 9,223 top-ups of the largest amount
    await db('wallets').where({ customer_id: customer }).update({ credits_posted: nearLimit.toString() });
    expect(await ledger.topUp({ ref: 'inv-2', customerId: customer, amount: 1_000_000_000_000_000n })).to.equal(LedgerError.WalletLimitExceeded);
    expect(await ledger.adjust({ ref: 'adj', customerId: customer, amount: 1_000_000_000_000_000n, reason: 'x', actor: 'ops@x' })).to.equal(
      LedgerError.WalletLimitExceeded,
    );
    expect(await balance()).to.deep.include({ credits: nearLimit });
    expect(await entries()).to.have.length(1);
    expect(await ledger.topUp({ ref: 'inv-3', customerId: customer, amount: 1_000_000n })).to.have.property('replayed', false); // what fits still posts
  });

  it('reserves, settles the actual amount and releases the rest, once however often repeated', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000_000n });
    const reserved = await ledger.reserve({
      ref: 'req_1',
      customerId: customer,
      bound: { amount: 600_000n },
      purpose: { request_id: 'req_1' },
      priceVersionId: 7n,
    });
    expect(reserved).to.deep.include({ amount: 600_000n, replayed: false });
    expect(await balance()).to.deep.equal({ credits: 1_000_000n, debits: 0n, reserved: 600_000n, available: 400_000n, debt: 0n });
    expect(await ledger.reserve({ ref: 'req_1', customerId: customer, bound: { amount: 600_000n }, purpose: {} })).to.deep.include({ replayed: true });
    expect(await ledger.reserve({ ref: 'req_1', customerId: customer, bound: { amount: 600_001n }, purpose: {} })).to.equal(LedgerError.ReferenceConflict);

    const settled = await ledger.settle({ ref: 'req_1', charge: { amount: 250_000n } });
    expect(settled).to.deep.include({ charged: 250_000n, debt: 0n, replayed: false });
    expect(await ledger.settle({ ref: 'req_1', charge: { amount: 999n } })).to.deep.include({ charged: 250_000n, replayed: true });
    expect(await ledger.release({ ref: 'req_1' })).to.equal(LedgerError.AlreadySettled);
    expect(await balance()).to.deep.equal({ credits: 1_000_000n, debits: 250_000n, reserved: 0n, available: 750_000n, debt: 0n });

    const rows = await entries();
    expect(rows.map((r) => [r.kind, r.amount, r.debits_delta, r.pending_delta])).to.deep.equal([
      ['top_up', 1_000_000n, 0n, 0n],
      ['reserve', 600_000n, 0n, 600_000n],
      ['settle', 250_000n, 250_000n, -600_000n],
    ]);
    expect(rows[2].price_version_id).to.equal(7n);
    expect(rows[2].purpose).to.include({ request_id: 'req_1', reserved: '600000' });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('reserves and settles a plain request in one statement each; a replay still answers as before', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000_000n });
    const statements: string[] = [];
    const record = (query: { sql: string }) => void statements.push(query.sql);
    db.on('query', record);
    try {
      expect(await ledger.reserve({ ref: 'req_1', customerId: customer, bound: { amount: 600_000n }, purpose: { request_id: 'req_1' } })).to.deep.include({
        amount: 600_000n,
        replayed: false,
      });
      expect(statements, 'reserve').to.have.length(1);
      statements.length = 0;
      expect(await ledger.settle({ ref: 'req_1', charge: { amount: 250_000n }, purpose: { ending: 'complete' } })).to.deep.include({
        charged: 250_000n,
        replayed: false,
      });
      expect(statements, 'settle').to.have.length(1);
    } finally {
      db.off('query', record);
    }
    expect(await ledger.settle({ ref: 'req_1', charge: { amount: 250_000n } })).to.deep.include({ charged: 250_000n, replayed: true });
    const reservation = await db('reservations').where({ ref: 'req_1' }).first();
    expect(reservation).to.include({ status: 'settled', amount: 600_000n, customer_id: customer });
    expect(reservation.resolved_at).to.be.instanceOf(Date);
    const [, reserve, settle] = await entries();
    expect(reserve).to.include({
      kind: 'reserve',
      reference: 'reserve:req_1',
      reservation_ref: 'req_1',
      amount: 600_000n,
      pending_delta: 600_000n,
      debits_delta: 0n,
    });
    expect(settle).to.include({
      kind: 'settle',
      reference: 'settle:req_1',
      reservation_ref: 'req_1',
      amount: 250_000n,
      pending_delta: -600_000n,
      debits_delta: 250_000n,
    });
    expect(settle.purpose).to.deep.equal({ request_id: 'req_1', ending: 'complete', reserved: '600000', priced: { amount: '250000' } });
    expect(await balance()).to.deep.equal({ credits: 1_000_000n, debits: 250_000n, reserved: 0n, available: 750_000n, debt: 0n });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('releases once; a settle after a release is refused', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000n });
    await ledger.reserve({ ref: 'r', customerId: customer, bound: { amount: 700n }, purpose: {} });
    expect(await ledger.release({ ref: 'r' })).to.deep.equal({ ref: 'r', released: 700n, replayed: false });
    expect(await ledger.release({ ref: 'r' })).to.deep.equal({ ref: 'r', released: 700n, replayed: true });
    expect(await ledger.settle({ ref: 'r', charge: { amount: 1n } })).to.equal(LedgerError.AlreadyReleased);
    expect(await ledger.release({ ref: 'nope' })).to.equal(LedgerError.ReservationNotFound);
    expect(await balance()).to.deep.equal({ credits: 1_000n, debits: 0n, reserved: 0n, available: 1_000n, debt: 0n });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('refuses a reservation the balance cannot cover, and writes nothing', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 500n });
    expect(await ledger.reserve({ ref: 'big', customerId: customer, bound: { amount: 501n }, purpose: {} })).to.equal(LedgerError.InsufficientFunds);
    expect(await db('reservations')).to.have.length(0);
    expect(await entries()).to.have.length(1);
    const other = await insertCustomer(db);
    expect(await ledger.reserve({ ref: 'none', customerId: other, bound: { amount: 1n }, purpose: {} })).to.equal(LedgerError.InsufficientFunds);
    expect(await ledger.reserve({ ref: 'none', customerId: 'cus_nobody', bound: { amount: 1n }, purpose: {} })).to.equal(LedgerError.CustomerNotFound);
  });

  it('charges usage above the reservation in full: the reservation, then the balance, then debt, in one entry', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000n });
    await ledger.reserve({ ref: 'a', customerId: customer, bound: { amount: 300n }, purpose: {} });
    expect(await ledger.settle({ ref: 'a', charge: { amount: 500n } })).to.deep.include({ charged: 500n, debt: 0n });
    await ledger.reserve({ ref: 'b', customerId: customer, bound: { amount: 400n }, purpose: {} });
    // Available is 100 beside the 400 held: 900 takes the 400, the 100, and 400 becomes debt.
    expect(await ledger.settle({ ref: 'b', charge: { amount: 900n } })).to.deep.include({ charged: 500n, debt: 400n });
    expect(await ledger.settle({ ref: 'b', charge: { amount: 900n } })).to.deep.include({ charged: 500n, debt: 400n, replayed: true });
    expect(await balance()).to.deep.equal({ credits: 1_000n, debits: 1_000n, reserved: 0n, available: 0n, debt: 400n });
    const settle = (await entries()).find((e) => e.reference === 'settle:b');
    expect([settle.amount, settle.debits_delta, settle.pending_delta, settle.debt_delta]).to.deep.equal([500n, 500n, -400n, 400n]);
    expect(settle.purpose).to.deep.include({ reserved: '400', debt: '400', priced: { amount: '900' } });
    expect(settle.purpose).to.not.have.property('uncovered');
    expect(await ledger.reconcile()).to.deep.equal([]);
    const window = { since: new Date(Date.now() - 60_000), until: new Date(Date.now() + 60_000) };
    expect(await ledger.reconcilePriced(window)).to.deep.include({ checked: 2, differenceCount: 0 });
  });

  it('adjusts both ways, never below zero available', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000n });
    expect(await ledger.adjust({ ref: 'goodwill', customerId: customer, amount: 250n, reason: 'outage credit', actor: 'ops@x' })).to.have.property(
      'replayed',
      false,
    );
    expect(await ledger.adjust({ ref: 'fix', customerId: customer, amount: -1_000n, reason: 'correction', actor: 'ops@x' })).to.have.property(
      'replayed',
      false,
    );
    expect(await ledger.adjust({ ref: 'too-much', customerId: customer, amount: -251n, reason: 'x', actor: 'ops@x' })).to.equal(LedgerError.InsufficientFunds);
    expect(await ledger.adjust({ ref: 'zero', customerId: customer, amount: 0n, reason: 'x', actor: 'ops@x' })).to.equal(LedgerError.InvalidAmount);
    expect(await balance()).to.deep.equal({ credits: 1_250n, debits: 1_000n, reserved: 0n, available: 250n, debt: 0n });
    const adjustment = (await entries()).find((e) => e.reference === 'adjustment:fix');
    expect(adjustment.purpose).to.deep.equal({ reason: 'correction', actor: 'ops@x' });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('spends the free quota first, shows it in the journal, and renews it with the period', async () => {
    const free = { modelId: 'sandbox/claude-sonnet', quota: { amount: 1_000, unit: 'tokens' as const, period: 'month' as const } };
    await ledger.topUp({ ref: 't', customerId: customer, amount: 100_000n });
    const bound = tokenLines(sonnet, { input_tokens: 400, output_tokens: 1_000 }); // 1400 tokens, 16,200 micro
    const reserved = await ledger.reserve({ ref: 'q1', customerId: customer, bound: { lines: bound }, purpose: {}, free });
    // 1000 free tokens held: 400 input + 600 output free; 400 output charged x 15 = 6000.
    expect(reserved).to.deep.include({ amount: 6_000n, freeUnitsHeld: 1_000n });
    const settled = await ledger.settle({ ref: 'q1', charge: { lines: tokenLines(sonnet, { input_tokens: 400, output_tokens: 200 }) } });
    expect(settled).to.deep.include({ charged: 0n, freeUnitsUsed: 600n, freeAmount: 4_200n });

    const second = await ledger.reserve({ ref: 'q2', customerId: customer, bound: { lines: bound }, purpose: {}, free });
    expect(second).to.deep.include({ freeUnitsHeld: 400n });
    const paid = await ledger.settle({ ref: 'q2', charge: { lines: tokenLines(sonnet, { input_tokens: 400, output_tokens: 1_000 }) } });
    // 400 free input tokens; 1000 output tokens at 15 micro each.
    expect(paid).to.deep.include({ charged: 15_000n, freeUnitsUsed: 400n, freeAmount: 1_200n });

    const third = await ledger.reserve({ ref: 'q3', customerId: customer, bound: { lines: bound }, purpose: {}, free });
    expect(third).to.deep.include({ freeUnitsHeld: 0n, amount: 16_200n });
    await ledger.release({ ref: 'q3' });

    clock = new Date('2026-12-01T00:00:00Z'); // a new calendar month
    const renewed = await ledger.reserve({ ref: 'q4', customerId: customer, bound: { lines: bound }, purpose: {}, free });
    expect(renewed).to.deep.include({ freeUnitsHeld: 1_000n });
    await ledger.release({ ref: 'q4' });

    const usage = await db('free_quota_usage').where({ customer_id: customer }).orderBy('period_start');
    expect(usage.map((u) => [u.used, u.held])).to.deep.equal([
      [1_000n, 0n],
      [0n, 0n],
    ]);
    const settle = (await entries()).find((e) => e.reference === 'settle:q1');
    expect([settle.free_units, settle.free_amount, settle.amount]).to.deep.equal([600n, 4_200n, 0n]);
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('counts request-based free quota per request', async () => {
    const free = { modelId: 'm/x', quota: { amount: 1, unit: 'requests' as const, period: 'day' as const } };
    await ledger.topUp({ ref: 't', customerId: customer, amount: 100_000n });
    const lines = tokenLines(sonnet, { input_tokens: 10, output_tokens: 10 });
    expect(await ledger.reserve({ ref: 'a', customerId: customer, bound: { lines }, purpose: {}, free })).to.deep.include({ amount: 0n, freeUnitsHeld: 1n });
    expect(await ledger.reserve({ ref: 'b', customerId: customer, bound: { lines }, purpose: {}, free })).to.deep.include({ amount: 180n, freeUnitsHeld: 0n });
    expect(await ledger.settle({ ref: 'a', charge: { lines } })).to.deep.include({ charged: 0n, freeUnitsUsed: 1n, freeAmount: 180n });
    expect(await ledger.settle({ ref: 'b', charge: { lines } })).to.deep.include({ charged: 180n });
  });

  it('detects a wallet that no longer matches its journal', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 1_000n });
    await ledger.reserve({ ref: 'r', customerId: customer, bound: { amount: 100n }, purpose: {} });
    await db('wallets').where({ customer_id: customer }).update({ credits_posted: 5_000 });
    expect(await ledger.reconcile()).to.deep.equal([{ customer_id: customer, column: 'credits_posted', wallet: 5_000n, expected: 1_000n }]);
  });

  it('pages the journal newest first', async () => {
    for (let i = 0; i < 5; i++) await ledger.topUp({ ref: `t${i}`, customerId: customer, amount: 1n });
    const first = await ledger.journal(customer, { limit: 3 });
    if (typeof first === 'string') throw new Error(first);
    expect(first.entries.map((e) => e.reference)).to.deep.equal(['top_up:t4', 'top_up:t3', 'top_up:t2']);
    expect(first.hasMore).to.equal(true);
    const second = await ledger.journal(customer, { limit: 3, before: first.entries.at(-1)!.id });
    if (typeof second === 'string') throw new Error(second);
    expect(second.entries.map((e) => e.reference)).to.deep.equal(['top_up:t1', 'top_up:t0']);
    expect(second.hasMore).to.equal(false);
  });

  it('refuses a second settle or release row for one reservation at the database too', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 10n });
    await ledger.reserve({ ref: 'r', customerId: customer, bound: { amount: 5n }, purpose: {} });
    await ledger.settle({ ref: 'r', charge: { amount: 5n } });
    let error: unknown;
    await db('ledger_entries')
      .insert({ customer_id: customer, kind: 'release', reference: 'forged', reservation_ref: 'r', amount: 5, purpose: '{}' })
      .catch((e) => (error = e));
    expect(String(error)).to.include('ledger_entries_one_resolution');
  });

  it('refuses to let the database hold a negative balance even if code tried', async () => {
    await ledger.topUp({ ref: 't', customerId: customer, amount: 10n });
    let error: unknown;
    await db('wallets')
      .where({ customer_id: customer })
      .update({ debits_posted: 11 })
      .catch((e) => (error = e));
    expect(String(error)).to.include('wallets_available_non_negative');
  });
});
