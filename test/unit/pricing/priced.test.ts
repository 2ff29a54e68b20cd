import { expect } from 'chai';
import { pricedCost, pricedTokenLines, readPriced } from '../../../src/pricing/priced.ts';
import { costOf, tokenLines } from '../../../src/pricing/cost.ts';

// What a charge records it was priced from, priced again (issue 33, item 3).
describe('a recorded charge priced again at its price version', () => {
  const price = { input_per_mtok: '3.00', output_per_mtok: '15.00', cache_read_per_mtok: '0.30', multipliers: { priority: '2', fast: '6' } };

  it('prices token counts with the same lines the charge used, the multiplier read from the version by name', () => {
    const tokens = { input_tokens: 1_000, output_tokens: 200, cache_read_input_tokens: 5_000 };
    expect(pricedCost({ tokens }, price)).to.equal(costOf(tokenLines(price, tokens)));
    expect(pricedCost({ tokens }, price)).to.equal(3_000n + 3_000n + 1_500n);
    expect(pricedCost({ tokens: { ...tokens, multiplier: 'priority' } }, price)).to.equal(2n * 7_500n);
    expect(costOf(pricedTokenLines(price, { ...tokens, multiplier: 'fast' }))).to.equal(6n * 7_500n);
  });

  it('prices video seconds at the tier, and a fixed figure as itself', () => {
    expect(pricedCost({ video: { seconds: 7, tier: '720p' } }, { per_second: { '720p': '0.10' } })).to.equal(700_000n);
    expect(pricedCost({ amount: '120000' }, undefined)).to.equal(120_000n);
  });

  it('cannot price what its version lacks: a tier, a multiplier, any price at all, a count that is not whole', () => {
    expect(pricedCost({ video: { seconds: 7, tier: '1080p' } }, { per_second: { '720p': '0.10' } })).to.equal(undefined);
    expect(pricedCost({ tokens: { input_tokens: 1, multiplier: 'flex' } }, price)).to.equal(undefined);
    expect(pricedCost({ tokens: { input_tokens: 1 } }, undefined)).to.equal(undefined);
    expect(pricedCost({ tokens: { input_tokens: 1.5 } }, price)).to.equal(undefined);
  });

  it('reads only the shapes it writes', () => {
    expect(readPriced({ tokens: { input_tokens: 3 } })).to.deep.equal({ tokens: { input_tokens: 3 } });
    expect(readPriced({ video: { seconds: 5, tier: '720p' } })).to.deep.equal({ video: { seconds: 5, tier: '720p' } });
    expect(readPriced({ amount: '42' })).to.deep.equal({ amount: '42' });
    for (const odd of [undefined, null, 'x', [], { amount: '-1' }, { amount: 42 }, { video: { seconds: '5', tier: '720p' } }])
      expect(readPriced(odd)).to.equal(undefined);
  });
});
