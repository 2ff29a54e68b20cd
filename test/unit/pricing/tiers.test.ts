import { expect } from 'chai';
import type { TokenPrice } from '../../../src/catalogue/types.ts';
import { messagesBoundLines } from '../../../src/domain/messages/protocol.ts';
import { chatBoundLines } from '../../../src/domain/chat/protocol.ts';
import { responsesBoundLines } from '../../../src/domain/responses/protocol.ts';
import { applyFree, costOf, tokenLines } from '../../../src/pricing/cost.ts';
import { holdPrice, holdTier, priceAtTier, tierOf } from '../../../src/pricing/tiers.ts';

// Claude Opus with Anthropic's long-context step: above 200,000 input tokens, input and cache x2, output x1.5.
const opus: TokenPrice = {
  input_per_mtok: '4.00',
  output_per_mtok: '20.00',
  cache_read_per_mtok: '0.20',
  cache_write_per_mtok: '5.00',
  multipliers: { fast: '6', priority: '1.25' },
  tiers: [{ above_input_tokens: 200_000, input_per_mtok: '8.00', output_per_mtok: '30.00', cache_read_per_mtok: '0.40', cache_write_per_mtok: '10.00' }],
};

/** Micro-units of `units` tokens at `perMillion` (a decimal string's micro-units per million), not yet rounded: x1e-6. */
const exact = (units: number, perMillionMicros: number) => BigInt(units) * BigInt(perMillionMicros);
const ceilMicros = (numerator: bigint, denominator = 1_000_000n) => (numerator + denominator - 1n) / denominator;

describe('long-context tiers', () => {
  it('prices a request whose input is exactly at the threshold at the base prices, and one token above at the tier, every line', () => {
    const at = { input_tokens: 200_000, output_tokens: 1_000 };
    expect(tierOf(opus, at)).to.equal(undefined);
    expect(costOf(tokenLines(opus, at))).to.equal(ceilMicros(exact(200_000, 4_000_000) + exact(1_000, 20_000_000)));
    const above = { input_tokens: 200_001, output_tokens: 1_000 };
    expect(tierOf(opus, above)).to.deep.equal({ index: 0, above_input_tokens: 200_000, input_tokens: 200_001 });
    // Input and output both step: 200,001 x 8.00 + 1,000 x 30.00.
    expect(costOf(tokenLines(opus, above))).to.equal(ceilMicros(exact(200_001, 8_000_000) + exact(1_000, 30_000_000)));
  });

  it('judges the input with cache reads and writes included, and prices the cache lines at the tier', () => {
    // 1,000 uncached + 150,000 read + 49,000 written = 200,000: the base. One more read: the tier.
    const base = { input_tokens: 1_000, cache_read_input_tokens: 150_000, cache_creation_input_tokens: 49_000, output_tokens: 10 };
    expect(tierOf(opus, base)).to.equal(undefined);
    expect(costOf(tokenLines(opus, base))).to.equal(
      ceilMicros(exact(1_000, 4_000_000) + exact(49_000, 5_000_000) + exact(150_000, 200_000) + exact(10, 20_000_000)),
    );
    const tiered = { ...base, cache_read_input_tokens: 150_001 };
    expect(tierOf(opus, tiered)).to.deep.include({ index: 0, input_tokens: 200_001 });
    expect(costOf(tokenLines(opus, tiered))).to.equal(
      ceilMicros(exact(1_000, 8_000_000) + exact(49_000, 10_000_000) + exact(150_001, 400_000) + exact(10, 30_000_000)),
    );
    // Output never counts towards the threshold.
    expect(tierOf(opus, { input_tokens: 100, output_tokens: 900_000 })).to.equal(undefined);
  });

  it('multiplies the tier by a premium, and rounds the whole request up once, at the end', () => {
    const usage = { input_tokens: 200_001, cache_read_input_tokens: 3, output_tokens: 7, multiplierMicros: 1_250_000n };
    // Every line at the tier x1.25, summed exactly, rounded once: 200,001 x 8 x 1.25 + 3 x 0.40 x 1.25 + 7 x 30 x 1.25.
    const numerator = (exact(200_001, 8_000_000) + exact(3, 400_000) + exact(7, 30_000_000)) * 1_250_000n;
    expect(costOf(tokenLines(opus, usage))).to.equal(ceilMicros(numerator, 1_000_000_000_000n));
    // Rounding each line apart would charge more: 3 cache reads alone are 1.5 micro-units, 2 once rounded.
    const apart = tokenLines(opus, usage).reduce((sum, line) => sum + costOf([line]), 0n);
    expect(apart > costOf(tokenLines(opus, usage))).to.equal(true);
  });

  it('takes the last tier the input passes, and keeps server tool requests at their base price', () => {
    const stepped: TokenPrice = {
      input_per_mtok: '1.00',
      output_per_mtok: '2.00',
      web_search_per_1k_requests: '10.00',
      tiers: [
        { above_input_tokens: 100, input_per_mtok: '2.00', output_per_mtok: '3.00' },
        { above_input_tokens: 200, input_per_mtok: '4.00', output_per_mtok: '5.00' },
      ],
    };
    expect(tierOf(stepped, { input_tokens: 150, output_tokens: 0 })?.index).to.equal(0);
    expect(tierOf(stepped, { input_tokens: 201, output_tokens: 0 })?.index).to.equal(1);
    const lines = tokenLines(stepped, { input_tokens: 201, output_tokens: 1, web_search_requests: 1 });
    expect(lines.map((l) => l.microsPerMillion)).to.deep.equal([4_000_000n, 4_000_000n, 4_000_000n, 5_000_000n, 10_000_000_000n]);
  });

  it('derives a cache price a tier leaves out from the input step: base cache x tier input / base input, rounded up to the micro-unit', () => {
    const gpt: TokenPrice = {
      input_per_mtok: '1.25',
      output_per_mtok: '10.00',
      cache_read_per_mtok: '0.125',
      cache_write_per_mtok: '1.50',
      tiers: [{ above_input_tokens: 272_000, input_per_mtok: '2.50', output_per_mtok: '15.00' }],
    };
    expect(priceAtTier(gpt, 0)).to.deep.equal({
      input_per_mtok: '2.50',
      output_per_mtok: '15.00',
      cache_read_per_mtok: '0.250000', // 0.125 x 2.50 / 1.25
      cache_write_per_mtok: '3.000000', // 1.50 x 2
    });
    // A step that does not divide evenly: 0.10 x 1.00 / 3.00 = 0.0333... -> 0.033334.
    const odd: TokenPrice = {
      input_per_mtok: '3.00',
      output_per_mtok: '1',
      cache_read_per_mtok: '0.10',
      tiers: [{ above_input_tokens: 1, input_per_mtok: '1.00', output_per_mtok: '1' }],
    };
    expect(priceAtTier(odd, 0).cache_read_per_mtok).to.equal('0.033334');
    // Set on the tier: used as it is. Absent on the base too: absent, so it defaults to the tier's input.
    const plain: TokenPrice = {
      input_per_mtok: '1.00',
      output_per_mtok: '2.00',
      cache_write_1h_per_mtok: '2.00',
      tiers: [{ above_input_tokens: 10, input_per_mtok: '2.00', output_per_mtok: '3.00', cache_write_per_mtok: '2.60' }],
    };
    expect(priceAtTier(plain, 0)).to.deep.equal({
      input_per_mtok: '2.00',
      output_per_mtok: '3.00',
      cache_write_per_mtok: '2.60',
      cache_write_1h_per_mtok: '4.000000',
    });
    const lines = tokenLines(plain, {
      input_tokens: 5,
      cache_read_input_tokens: 6,
      cache_creation_input_tokens: 3,
      cache_creation_1h_input_tokens: 1,
      output_tokens: 0,
    });
    // input, 5-minute writes, 1-hour writes, reads (the tier's input price), output.
    expect(lines.map((l) => [l.units, l.microsPerMillion])).to.deep.equal([
      [5n, 2_000_000n],
      [2n, 2_600_000n],
      [1n, 4_000_000n],
      [6n, 2_000_000n],
      [0n, 3_000_000n],
    ]);
    expect(priceAtTier(plain, undefined)).to.not.have.property('tiers');
  });

  it('spends free tokens at the tier prices, line by line', () => {
    const lines = tokenLines(opus, { input_tokens: 200_001, output_tokens: 100 });
    const paid = applyFree(lines, 200_001n);
    expect(paid.amount).to.equal(3_000n); // 100 output at 30.00
    expect(paid.freeAmount).to.equal(costOf(lines) - 3_000n);
  });

  it('sizes a hold at the tier its input estimate plus a quarter reaches, not at the tier of every request of a 1M model', () => {
    expect(holdTier(opus, 1_000)).to.equal(undefined);
    expect(holdTier(opus, 160_000)).to.equal(undefined); // reach 200,000: not above
    expect(holdTier(opus, 160_001)).to.deep.equal({ index: 0, above_input_tokens: 200_000, input_tokens: 200_002 });
    expect(holdPrice(opus, 160_001)).to.deep.include({ input_per_mtok: '8.00', output_per_mtok: '30.00', cache_write_per_mtok: '10.00' });
    // The messages bound: every input token at the dearest input rate (cache writes, 10.00) and all output, at the highest premium (fast x6).
    const bound = messagesBoundLines(opus, { stream: false, inputTokens: 170_000, maxOutputTokens: 1_000 });
    expect(costOf(bound)).to.equal(ceilMicros((exact(170_000, 10_000_000) + exact(1_000, 30_000_000)) * 6_000_000n, 1_000_000_000_000n));
    const small = messagesBoundLines(opus, { stream: false, inputTokens: 1_000, maxOutputTokens: 1_000 });
    expect(costOf(small)).to.equal(ceilMicros((exact(1_000, 5_000_000) + exact(1_000, 20_000_000)) * 6_000_000n, 1_000_000_000_000n));
    // Chat and responses bounds take the tier the same way.
    const flat = { stream: false, inputTokens: 300_000, maxOutputTokens: 10 };
    expect(chatBoundLines(opus, flat)[1]!.microsPerMillion).to.equal(30_000_000n);
    expect(responsesBoundLines(opus, flat)[0]!.microsPerMillion).to.equal(10_000_000n);
  });
});
