import { expect } from 'chai';
import { applyFree, billedSeconds, costOf, tokenLines, videoLines } from '../../../src/pricing/cost.ts';

const sonnet = { input_per_mtok: '3.00', output_per_mtok: '15.00', cache_read_per_mtok: '0.30', cache_write_per_mtok: '3.75' };

describe('cost arithmetic', () => {
  it('prices tokens exactly and rounds up once, at the end, to the micro-unit', () => {
    // 1000 in x 3 + 500 out x 15 = 3000 + 7500 micro... per token: 3 and 15 micro-units.
    expect(costOf(tokenLines(sonnet, { input_tokens: 1000, output_tokens: 500 }))).to.equal(10_500n);
    // One cache-read token at 0.30 per million is 0.3 micro-units: rounds up to 1.
    expect(costOf(tokenLines(sonnet, { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1 }))).to.equal(1n);
    // Three cache reads (0.9) and one cache write (3.75): 4.65 -> 5, not 1 + 4.
    expect(costOf(tokenLines(sonnet, { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 3, cache_creation_input_tokens: 1 }))).to.equal(5n);
  });

  it('is exact on awkward prices such as 0.000003 per million tokens', () => {
    // "0.000003" per token is "3" per million tokens: 3 micro-units a token.
    expect(costOf(tokenLines({ input_per_mtok: '3', output_per_mtok: '3' }, { input_tokens: 7, output_tokens: 0 }))).to.equal(21n);
    const tiny = { input_per_mtok: '0.000003', output_per_mtok: '0.000003' };
    expect(costOf(tokenLines(tiny, { input_tokens: 1, output_tokens: 0 }))).to.equal(1n);
    expect(costOf(tokenLines(tiny, { input_tokens: 1_000_000, output_tokens: 0 }))).to.equal(3n);
    expect(costOf(tokenLines(tiny, { input_tokens: 1_000_001, output_tokens: 0 }))).to.equal(4n);
    // Large usage stays exact beyond 2^53.
    const huge = costOf(tokenLines({ input_per_mtok: '999999.999999', output_per_mtok: '0' }, { input_tokens: 9_007_199_254_740_991, output_tokens: 0 }));
    expect(huge).to.equal((9_007_199_254_740_991n * 999_999_999_999n + 999_999n) / 1_000_000n);
  });

  it('prices video seconds by tier', () => {
    expect(costOf(videoLines('0.10', 5))).to.equal(500_000n);
    expect(costOf(videoLines('0.000001', 3))).to.equal(3n);
  });

  it('spends free units line by line in order and charges the rest', () => {
    const lines = tokenLines(sonnet, { input_tokens: 100, output_tokens: 100 });
    expect(applyFree(lines, 0n)).to.deep.equal({ amount: 1800n, freeUnitsUsed: 0n, freeAmount: 0n });
    expect(applyFree(lines, 150n)).to.deep.equal({ amount: 750n, freeUnitsUsed: 150n, freeAmount: 1050n });
    expect(applyFree(lines, 1_000n)).to.deep.equal({ amount: 0n, freeUnitsUsed: 200n, freeAmount: 1800n });
  });

  it('bills whole seconds: nearest, halves up, at least one; decimals read without floats', () => {
    expect(billedSeconds(5)).to.equal(5);
    expect(billedSeconds('5')).to.equal(5);
    expect(billedSeconds('5.04')).to.equal(5);
    expect(billedSeconds('4.96')).to.equal(5);
    expect(billedSeconds('5.5')).to.equal(6);
    expect(billedSeconds('0.4')).to.equal(1);
    for (const bad of [undefined, null, '', 'five', '-5', '0', '0.0', 'Infinity', Number.NaN, '5s'])
      expect(billedSeconds(bad as never), String(bad)).to.equal(undefined);
  });
});
