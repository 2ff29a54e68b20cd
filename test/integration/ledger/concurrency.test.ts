import { expect } from 'chai';
import type { Knex } from 'knex';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { createLedger, type Ledger } from '../../../src/ledger/service.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../../helpers/db.ts';
import { insertCustomer } from '../../helpers/factories.ts';

// On PostgreSQL these run truly in parallel on a pool of 20 connections (CI runs the suite there
// too); the embedded PGlite has one connection and interleaves them, which must be just as safe.
describe(`ledger under concurrency (${usingPostgres() ? 'PostgreSQL, 20 connections' : 'PGlite'})`, function () {
  let db: Knex;
  let ledger: Ledger;
  let customer: string;

  beforeEach(async () => {
    db = await getTestDatabase();
    await resetDatabase(db);
    ledger = createLedger({ db });
    customer = await insertCustomer(db);
    await ledger.topUp({ ref: 'fund', customerId: customer, amount: 50_000n }); // covers exactly 50 x 1000
  });

  async function watchBalance(stop: () => boolean): Promise<bigint[]> {
    const seen: bigint[] = [];
    while (!stop()) {
      const row = await db('wallets').where({ customer_id: customer }).first();
      seen.push(BigInt(row.credits_posted) - BigInt(row.debits_posted) - BigInt(row.debits_pending));
      await new Promise((r) => setTimeout(r, 2));
    }
    return seen;
  }

  it('200 simultaneous reservations against a wallet covering 50: exactly 50 succeed', async () => {
    let done = false;
    const watcher = watchBalance(() => done);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        ledger.reserve({ ref: `r${i}`, customerId: customer, bound: { amount: 1_000n }, purpose: { request_id: `r${i}` } }),
      ),
    );
    done = true;
    const seen = await watcher;
    expect(results.filter((r) => typeof r === 'object')).to.have.length(50);
    expect(results.filter((r) => r === LedgerError.InsufficientFunds)).to.have.length(150);
    expect(seen.every((available) => available >= 0n)).to.equal(true);
    expect(await ledger.balance(customer)).to.deep.equal({ credits: 50_000n, debits: 0n, reserved: 50_000n, available: 0n, debt: 0n });
    expect(await db('reservations')).to.have.length(50);
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('concurrent settles and releases of the same refs resolve each exactly once', async () => {
    const refs = Array.from({ length: 50 }, (_, i) => `s${i}`);
    for (const ref of refs) await ledger.reserve({ ref, customerId: customer, bound: { amount: 1_000n }, purpose: {} });
    const attempts = refs.flatMap((ref, i) => [
      ledger.settle({ ref, charge: { amount: 400n + BigInt(i) } }),
      ledger.release({ ref }),
      ledger.settle({ ref, charge: { amount: 400n + BigInt(i) } }),
      ledger.release({ ref }),
    ]);
    await Promise.all(attempts);
    const reservations = await db('reservations').orderBy('ref');
    expect(reservations.every((r) => r.status === 'settled' || r.status === 'released')).to.equal(true);
    const resolutions = await db('ledger_entries').whereIn('kind', ['settle', 'release']);
    expect(resolutions).to.have.length(50);
    expect(new Set(resolutions.map((e) => e.reservation_ref)).size).to.equal(50);
    const charged = resolutions.filter((e) => e.kind === 'settle').reduce((sum, e) => sum + e.amount, 0n);
    expect(await ledger.balance(customer)).to.deep.equal({ credits: 50_000n, debits: charged, reserved: 0n, available: 50_000n - charged, debt: 0n });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it("batches one wallet's concurrent operations into multi-row statements, each with its own outcome, replays and shortfalls included", async () => {
    const batched = { reserve: 0, settle: 0 };
    const count = (query: { sql: string }) => {
      const sql = query.sql.trim();
      if (sql.includes('jsonb_to_recordset')) batched[sql.includes('insert into reservations') ? 'reserve' : 'settle']++;
    };
    db.on('query', count);
    let results: Array<unknown>;
    try {
      // 60 calls, 59 references ('r0' twice): the first 50 references fit, in arrival order.
      const reserves = await Promise.all(
        ['r0', ...Array.from({ length: 59 }, (_, i) => `r${i}`)].map((ref) =>
          ledger.reserve({ ref, customerId: customer, bound: { amount: 1_000n }, purpose: { request_id: ref } }),
        ),
      );
      results = reserves;
      const settles = await Promise.all(
        Array.from({ length: 20 }, (_, i) => ledger.settle({ ref: `r${i}`, charge: { amount: 500n }, customerId: customer, purpose: { ending: 'complete' } })),
      );
      for (const settled of settles) expect(settled).to.deep.include({ charged: 500n, replayed: false });
      // A settle sent twice at once, and one for a reference that was never reserved.
      const [first, second, unknown] = await Promise.all([
        ledger.settle({ ref: 'r20', charge: { amount: 700n }, customerId: customer }),
        ledger.settle({ ref: 'r20', charge: { amount: 700n }, customerId: customer }),
        ledger.settle({ ref: 'nope', charge: { amount: 1n }, customerId: customer }),
      ]);
      expect([first, second].map((r) => (r as { replayed: boolean }).replayed).sort()).to.deep.equal([false, true]);
      expect(unknown).to.equal(LedgerError.ReservationNotFound);
      // 20 more that all fit: one multi-row statement takes them together.
      const before = batched.reserve;
      const fitting = await Promise.all(
        Array.from({ length: 20 }, (_, i) => ledger.reserve({ ref: `f${i}`, customerId: customer, bound: { amount: 100n }, purpose: {} })),
      );
      expect(fitting.every((r) => typeof r === 'object' && r.amount === 100n && !r.replayed)).to.equal(true);
      expect(batched.reserve).to.be.greaterThan(before);
    } finally {
      db.off('query', count);
    }
    const granted = results.filter((r) => typeof r === 'object') as Array<{ ref: string; replayed: boolean }>;
    expect(
      granted
        .filter((r) => r.ref === 'r0')
        .map((r) => r.replayed)
        .sort(),
    ).to.deep.equal([false, true]);
    expect(results.filter((r) => r === LedgerError.InsufficientFunds)).to.have.length(9);
    expect(await db('reservations')).to.have.length(70);
    expect(await ledger.balance(customer)).to.deep.equal({
      credits: 50_000n,
      debits: 10_700n,
      reserved: 31_000n,
      available: 50_000n - 10_700n - 31_000n,
      debt: 0n,
    });
    expect(await ledger.reconcile()).to.deep.equal([]);
    expect(batched.reserve, 'multi-row reserve statements').to.be.greaterThan(0);
    expect(batched.settle, 'multi-row settle statements').to.be.greaterThan(0);
  });

  it('a batch statement that fails (a reference already reserved) changes nothing, and each operation then gets its own outcome', async () => {
    await ledger.reserve({ ref: 'x', customerId: customer, bound: { amount: 1_000n }, purpose: { request_id: 'x' } });
    const statements: string[] = [];
    const record = (query: { sql: string }) => void statements.push(query.sql);
    db.on('query', record);
    let results: unknown[];
    try {
      // 'a' and 'b' run alone (two batches in flight per wallet); 'x', 'y' and 'z' queue behind them
      // and go as one statement, which hits 'x' and is undone; then each runs alone.
      results = await Promise.all(
        ['a', 'b', 'x', 'y', 'z'].map((ref) => ledger.reserve({ ref, customerId: customer, bound: { amount: 1_000n }, purpose: { request_id: ref } })),
      );
    } finally {
      db.off('query', record);
    }
    expect(results.map((r) => (r as { replayed: boolean }).replayed)).to.deep.equal([false, false, true, false, false]);
    const batch = statements.findIndex((sql) => sql.includes('jsonb_to_recordset'));
    const singlesAfter = statements.slice(batch + 1).filter((sql) => sql.trim().startsWith('with moved as'));
    expect(batch, 'a batch statement was sent').to.be.greaterThan(-1);
    expect(singlesAfter, "the batch's three operations ran again alone").to.have.length(3);
    expect((await db('reservations').orderBy('ref')).map((r) => r.ref)).to.deep.equal(['a', 'b', 'x', 'y', 'z']);
    expect(await ledger.balance(customer)).to.deep.equal({ credits: 50_000n, debits: 0n, reserved: 5_000n, available: 45_000n, debt: 0n });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });
});
