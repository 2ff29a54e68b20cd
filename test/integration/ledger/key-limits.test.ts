import { expect } from 'chai';
import type { Knex } from 'knex';
import { KeyLimitRefusal, createLedger, type Ledger, type Reserved } from '../../../src/ledger/service.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../../helpers/db.ts';
import { insertCustomer } from '../../helpers/factories.ts';

// The ledger's side of per-key limits: checked in the reservation's transaction under the key's
// row lock, so parallel reservations can never pass a limit (on PostgreSQL they really run in
// parallel on separate connections).
describe(`key limits in the reservation transaction (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  let db: Knex;
  let ledger: Ledger;
  let customerId: string;
  const keyId = 'key_limited';

  beforeEach(async () => {
    db = await getTestDatabase();
    await resetDatabase(db);
    ledger = createLedger({ db });
    customerId = await insertCustomer(db);
    await db('api_keys').insert({ id: keyId, customer_id: customerId, name: 'k', key_hash: 'h', redacted: 'r' });
    await ledger.topUp({ ref: 'fund', customerId, amount: 100_000_000n });
  });

  const limit = (columns: Record<string, unknown>) => db('api_keys').where({ id: keyId }).update(columns);
  const reserve = (ref: string, amount: bigint) =>
    ledger.reserve({ ref, customerId, bound: { amount }, purpose: { key_id: keyId }, limits: true, owner: null });
  const parallel = (n: number, amount: bigint, tag = 'r') => Promise.all(Array.from({ length: n }, (_, i) => reserve(`${tag}${i}`, amount)));
  const reserved = (results: unknown[]) => results.filter((r): r is Reserved => typeof r === 'object' && !(r instanceof KeyLimitRefusal));
  const refused = (results: unknown[]) => results.filter((r): r is KeyLimitRefusal => r instanceof KeyLimitRefusal);
  const spent = async () => {
    const [row] = await db('reservations').where({ key_id: keyId, status: 'pending' }).sum<{ s: string | null }[]>('amount as s');
    return (await ledger.keySpend(keyId)).day + BigInt(row?.s ?? 0);
  };

  it('never lets 50 parallel reservations pass a spend limit, and counts settled plus reserved', async () => {
    await limit({ spend_limit: 7_000, spend_period: 'day' });
    const first = await parallel(50, 1_000n);
    expect(reserved(first)).to.have.length(7);
    expect(refused(first).map((r) => [r.code, r.limit])).to.deep.equal(Array(43).fill([LedgerError.KeySpendLimitExceeded, 'spend_limit']));
    expect(refused(first)[0]!.message).to.match(/more than the 0\.000000 left of this API key's spend limit of 0\.007000 per day \(UTC\)/);

    // Three settle at half their hold: 1,500 of room comes back, enough for one more of 1,000.
    for (const r of reserved(first).slice(0, 3)) await ledger.settle({ ref: r.ref, charge: { amount: 500n } });
    const second = await parallel(50, 1_000n, 's');
    expect(reserved(second)).to.have.length(1);
    expect(await spent()).to.equal(6_500n);
    expect(await ledger.reconcileKeySpend()).to.deep.equal([]);
  });

  // Changed by issue 33: the limit used to cap a settle above its reservation (the rest was
  // dropped as `uncovered`). A limit refuses the next request; what was delivered is charged.
  it('charges a settle above its reservation in full; the limit then refuses the next reservation', async () => {
    await limit({ spend_limit: 3_000, spend_period: 'total' });
    const [a, b] = reserved(await parallel(2, 1_000n));
    const settled = await ledger.settle({ ref: a!.ref, charge: { amount: 5_000n } });
    expect(settled).to.include({ charged: 5_000n, debt: 0n });
    await ledger.release({ ref: b!.ref });
    expect((await ledger.keySpend(keyId)).total).to.equal(5_000n);
    expect(reserved(await parallel(3, 1_000n, 'c'))).to.have.length(0);
    expect(await ledger.reconcileKeySpend()).to.deep.equal([]);
    expect(await ledger.reconcile()).to.deep.equal([]);
  });

  it('counts concurrency as the pending reservations of the key', async () => {
    await limit({ max_concurrent: 3 });
    const first = await parallel(10, 10n);
    expect(reserved(first)).to.have.length(3);
    expect(refused(first).every((r) => r.code === LedgerError.KeyRateLimited && r.limit === 'max_concurrent' && r.retryAfterSeconds === 1)).to.equal(true);
    await ledger.release({ ref: reserved(first)[0]!.ref });
    expect(reserved(await parallel(5, 10n, 'n'))).to.have.length(1);
  });

  it('counts the rate as reservations made in the last 60 seconds, a sliding window', async () => {
    await limit({ requests_per_minute: 5 });
    const first = await parallel(10, 10n);
    const ok = reserved(first);
    expect(ok).to.have.length(5);
    expect(ok.map((r) => r.rate!.remaining).sort()).to.deep.equal([0, 1, 2, 3, 4]);
    expect(ok.every((r) => r.rate!.limit === 5 && r.rate!.resetSeconds === 60)).to.equal(true);
    const no = refused(first)[0]!;
    expect(no).to.include({ code: LedgerError.KeyRateLimited, limit: 'requests_per_minute' });
    expect(no.retryAfterSeconds).to.be.within(59, 60);
    expect(no.rate).to.include({ limit: 5, remaining: 0 });
    // Ending a request frees no rate: it counts until it leaves the window.
    for (const r of ok) await ledger.settle({ ref: r.ref, charge: { amount: 1n } });
    expect(reserved(await parallel(3, 10n, 'x'))).to.have.length(0);
    // Two of them leave the window: two more fit.
    await db('reservations')
      .whereIn('ref', [ok[0]!.ref, ok[1]!.ref])
      .update({ created_at: db.raw("now() - interval '61 seconds'") });
    expect(reserved(await parallel(4, 10n, 'y'))).to.have.length(2);
  });

  it('gives a request refused by its spend limit the rate state, without counting it', async () => {
    await limit({ requests_per_minute: 5, spend_limit: 15, spend_period: 'day' });
    expect(await reserve('first', 10n)).to.have.nested.property('rate.remaining', 4);
    const refusal = (await reserve('second', 10n)) as KeyLimitRefusal;
    expect(refusal).to.be.instanceOf(KeyLimitRefusal).and.include({ limit: 'spend_limit', retryAfterSeconds: null });
    expect(refusal.rate).to.include({ limit: 5, remaining: 4 });
    expect(await reserve('third', 5n)).to.have.nested.property('rate.remaining', 3);
  });

  it('reads the limits from the key row in the transaction: a limit changed takes effect on the next reservation', async () => {
    expect(reserved(await parallel(3, 10n))).to.have.length(3);
    await limit({ max_concurrent: 3 });
    expect(await reserve('over', 10n)).to.be.instanceOf(KeyLimitRefusal);
    await limit({ max_concurrent: null });
    expect(await reserve('free', 10n)).to.include({ amount: 10n });
  });
});
