import { expect } from 'chai';
import type { Knex } from 'knex';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { createLedger, type Ledger } from '../../../src/ledger/service.ts';
import { tokenLines } from '../../../src/pricing/cost.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../../helpers/db.ts';
import { insertCustomer } from '../../helpers/factories.ts';

const sonnet = { input_per_mtok: '3.00', output_per_mtok: '15.00' };
const free = { modelId: 'sandbox/claude-sonnet', quota: { amount: 1_000_000_000, unit: 'tokens' as const, period: 'month' as const } };

// Races on the same customer: a client retrying the same reference, and parallel requests on a
// model with free quota (reserve and settle both touch the wallet and the free-quota row). On
// PostgreSQL these truly overlap on 20 connections; PGlite interleaves them on its one connection.
describe(`ledger races on one customer (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  let db: Knex;
  let ledger: Ledger;
  let customer: string;

  beforeEach(async () => {
    db = await getTestDatabase();
    await resetDatabase(db);
    ledger = createLedger({ db, now: () => new Date('2026-11-22T12:00:00Z') });
    customer = await insertCustomer(db);
    await ledger.topUp({ ref: 'fund', customerId: customer, amount: 10_000_000_000n });
  });

  it('the same reference sent many times at once takes effect once and every caller gets the outcome', async () => {
    const reserves = await Promise.all(
      Array.from({ length: 20 }, () => ledger.reserve({ ref: 'same', customerId: customer, bound: { amount: 1_000n }, purpose: {} })),
    );
    expect(reserves.every((r) => typeof r === 'object' && r.amount === 1_000n)).to.equal(true);
    expect(reserves.filter((r) => typeof r === 'object' && !r.replayed)).to.have.length(1);

    const topUps = await Promise.all(Array.from({ length: 20 }, () => ledger.topUp({ ref: 'inv', customerId: customer, amount: 5n })));
    expect(topUps.every((r) => typeof r === 'object')).to.equal(true);
    expect(topUps.filter((r) => typeof r === 'object' && !r.replayed)).to.have.length(1);

    expect(await ledger.balance(customer)).to.deep.include({ credits: 10_000_000_005n, reserved: 1_000n });
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('reserves and settles on a model with free quota in parallel without deadlocking', async () => {
    const bound = { lines: tokenLines(sonnet, { input_tokens: 100, output_tokens: 100 }) };
    for (let i = 0; i < 60; i++) await ledger.reserve({ ref: `old${i}`, customerId: customer, bound, purpose: {}, free });
    const work = Array.from({ length: 60 }, (_, i) => [
      ledger.settle({ ref: `old${i}`, charge: { lines: tokenLines(sonnet, { input_tokens: 100, output_tokens: 50 }) } }),
      ledger.reserve({ ref: `new${i}`, customerId: customer, bound, purpose: {}, free }),
      ledger.release({ ref: `new${i - 1}` }),
    ]).flat();
    const results = await Promise.allSettled(work);
    const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    expect(failures).to.deep.equal([]);
    const values = results.map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(values.filter((v) => typeof v === 'string' && v !== LedgerError.ReservationNotFound)).to.deep.equal([]);

    const [usage] = await db('free_quota_usage').where({ customer_id: customer });
    const open = await db('reservations').where({ customer_id: customer, status: 'pending' }).sum({ held: 'free_units_held' });
    expect(usage.used).to.equal(60n * 150n);
    expect(usage.held).to.equal(BigInt(open[0]?.held ?? 0));
    expect(await ledger.reconcile()).to.deep.equal([]);
  });
});
