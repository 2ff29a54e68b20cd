import { expect } from 'chai';
import type { TokenPrice, VideoPrice } from '../../../src/catalogue/types.ts';
import { compilePlan, mergePrice, resolvePrice, scaleDecimal, scalePrice, type PricePlan } from '../../../src/pricing/plans.ts';
import { costBeyondFloor, readUpstreamCost, upstreamCost } from '../../../src/pricing/upstream-cost.ts';
import { videoLines } from '../../../src/pricing/cost.ts';

const opus: TokenPrice = {
  input_per_mtok: '4.00',
  output_per_mtok: '20.00',
  cache_read_per_mtok: '0.20',
  multipliers: { fast: '6' },
  tiers: [{ above_input_tokens: 200000, input_per_mtok: '8.00', output_per_mtok: '30.00' }],
};
const seedance: VideoPrice = { per_second: { '480p': '0.05', '720p': '0.10' } };

const plan = (overrides: PricePlan['overrides'], multiplier: string | null = null): PricePlan => ({
  id: 'plan_x',
  name: 'X',
  version: 4,
  multiplier,
  overrides,
});

describe('price plans: the precedence and the arithmetic', () => {
  it('scales every unit price, tiers included, rounding up to the micro-unit; premiums and thresholds are kept', () => {
    expect(scaleDecimal('0.10', '0.333333')).to.equal('0.033334'); // 0.0333333 rounds up
    expect(scaleDecimal('3.00', '1.2')).to.equal('3.600000');
    expect(scalePrice(opus, '0.5')).to.deep.equal({
      input_per_mtok: '2.000000',
      output_per_mtok: '10.000000',
      cache_read_per_mtok: '0.100000',
      multipliers: { fast: '6' },
      tiers: [{ above_input_tokens: 200000, input_per_mtok: '4.000000', output_per_mtok: '15.000000' }],
    });
    expect(scalePrice(seedance, '2')).to.deep.equal({ per_second: { '480p': '0.100000', '720p': '0.200000' } });
  });

  it('merges a partial price over the list price, of its own kind only', () => {
    expect(mergePrice(opus, { output_per_mtok: '18.00' })).to.deep.include({ input_per_mtok: '4.00', output_per_mtok: '18.00', tiers: opus.tiers });
    // Tiers are replaced as a whole.
    expect(mergePrice(opus, { tiers: [{ above_input_tokens: 100000, input_per_mtok: '5', output_per_mtok: '25' }] })).to.have.deep.property('tiers', [
      { above_input_tokens: 100000, input_per_mtok: '5', output_per_mtok: '25' },
    ]);
    // A video price: tier by tier, and only tiers the model prices.
    expect(mergePrice(seedance, { per_second: { '720p': '0.08', '4k': '1.00' } })).to.deep.equal({ per_second: { '480p': '0.05', '720p': '0.08' } });
    expect(mergePrice(seedance, { input_per_mtok: '1' })).to.equal(undefined);
    expect(mergePrice(opus, { per_second: { '720p': '1' } })).to.equal(undefined);
  });

  it('decides by the first rule that names the model: customer override, exact model, most specific pattern, multiplier, list', () => {
    const compiled = compilePlan(
      plan(
        [
          { model: 'anthropic/claude-*', multiplier: '0.9' },
          { model: 'anthropic/claude-opus*', multiplier: '0.7' },
          { model: 'anthropic/claude-opus-5', price: { output_per_mtok: '15.00' } },
          { model: 'video/*', price: { input_per_mtok: '1.00' } }, // a token price: video models fall through
        ],
        '0.8',
      ),
    );
    const planRef = { id: 'plan_x', name: 'X', version: 4 };
    const own = [{ model: 'anthropic/claude-opus-5', multiplier: '0.5' }];
    expect(resolvePrice({ id: 'anthropic/claude-opus-5', price: opus }, compiled, own).rule).to.deep.equal({ rule: 'customer_override', multiplier: '0.5' });
    const exact = resolvePrice({ id: 'anthropic/claude-opus-5', price: opus }, compiled, null);
    expect(exact.rule).to.deep.equal({ rule: 'plan_model', plan: planRef });
    expect(exact.price).to.deep.include({ input_per_mtok: '4.00', output_per_mtok: '15.00' }); // from the list, not the patterns
    expect(resolvePrice({ id: 'anthropic/claude-opus-6', price: opus }, compiled, null).rule).to.deep.equal({
      rule: 'plan_pattern',
      plan: planRef,
      pattern: 'anthropic/claude-opus*',
      multiplier: '0.7',
    });
    expect(resolvePrice({ id: 'anthropic/claude-sonnet-5', price: opus }, compiled, null).rule).to.deep.include({ pattern: 'anthropic/claude-*' });
    const video = resolvePrice({ id: 'video/seedance', price: seedance }, compiled, null);
    expect(video.rule).to.deep.equal({ rule: 'plan_multiplier', plan: planRef, multiplier: '0.8' });
    expect(video.price).to.deep.equal({ per_second: { '480p': '0.040000', '720p': '0.080000' } });
    expect(resolvePrice({ id: 'x/y', price: seedance }, null, null)).to.deep.equal({ price: seedance, rule: { rule: 'list' } });
    // A candidate that cannot be charged falls through to the next rule.
    const valid = (price: object) => (price as TokenPrice).output_per_mtok !== '15.00';
    expect(resolvePrice({ id: 'anthropic/claude-opus-5', price: opus }, compiled, null, valid).rule).to.deep.include({ rule: 'plan_pattern' });
  });

  it('records a charge’s upstream cost, null when the route has none, and a late report’s share beyond its floor', () => {
    const route = { provider: 'sandbox-ark', upstream_model: 'seedance' };
    expect(upstreamCost(route, videoLines('0.06', 5))).to.deep.equal({ amount: '300000', ...route });
    expect(upstreamCost(route, undefined)).to.deep.equal({ amount: null, ...route });
    expect(readUpstreamCost({ amount: '1e9', ...route })).to.equal(undefined);
    expect(costBeyondFloor({ amount: '500', ...route }, { amount: '120', ...route })).to.deep.equal({ amount: '380', ...route });
    expect(costBeyondFloor({ amount: '500', ...route }, { amount: null, ...route })).to.deep.equal({ amount: '500', ...route });
    expect(costBeyondFloor({ amount: '500', ...route }, undefined)).to.deep.equal({ amount: '500', ...route });
    expect(costBeyondFloor({ amount: null, ...route }, { amount: '120', ...route })).to.deep.equal({ amount: null, ...route });
  });
});
