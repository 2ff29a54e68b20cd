import { expect } from 'chai';
import { createDemandWindows } from '../../../src/holds/grant-demand.ts';

describe('grant demand windows: what a customer drew over the horizon', () => {
  it('adds the bounds drawn within the horizon, per customer', () => {
    const demand = createDemandWindows(2000); // ten slots of 200 ms
    expect(demand.add('cus_a', 100n, 10_000)).to.equal(100n);
    expect(demand.add('cus_a', 50n, 10_150)).to.equal(150n);
    expect(demand.add('cus_a', 25n, 11_900)).to.equal(175n); // still within 2 s of the first
    expect(demand.add('cus_b', 7n, 11_900)).to.equal(7n);
  });

  it('forgets slots the clock left behind, and everything after a long pause', () => {
    const demand = createDemandWindows(2000);
    demand.add('cus_a', 100n, 10_000); // slot 50
    demand.add('cus_a', 30n, 11_000); // slot 55
    expect(demand.add('cus_a', 1n, 12_050)).to.equal(31n); // slot 60 reuses 50's place: those 100 are gone
    expect(demand.add('cus_a', 1n, 60_000)).to.equal(1n); // minutes later: only this draw counts
  });

  it('is exact on micro-unit amounts far beyond Number precision', () => {
    const demand = createDemandWindows(1000);
    const big = 2n ** 60n;
    expect(demand.add('cus_a', big, 0)).to.equal(big);
    expect(demand.add('cus_a', 1n, 1)).to.equal(big + 1n);
  });
});
