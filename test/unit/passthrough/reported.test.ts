import { expect } from 'chai';
import { estimateReason, mergeReported } from '../../../src/domain/passthrough/reported.ts';

describe("the provider's usage as reported, kept for receipts", () => {
  it('lays later cumulative reports over earlier ones; nulls and absent fields keep what came before', () => {
    const start = mergeReported(undefined, {
      input_tokens: 12,
      cache_read_input_tokens: 900,
      output_tokens: 1,
      cache_creation: { ephemeral_5m_input_tokens: 4 },
    });
    const end = mergeReported(start, { input_tokens: null, output_tokens: 40, cache_creation: { ephemeral_1h_input_tokens: 2 }, service_tier: 'priority' });
    expect(end).to.deep.equal({
      input_tokens: 12,
      cache_read_input_tokens: 900,
      output_tokens: 40,
      cache_creation: { ephemeral_5m_input_tokens: 4, ephemeral_1h_input_tokens: 2 },
      service_tier: 'priority',
    });
    expect(start!.output_tokens).to.equal(1); // the earlier object is not changed
  });

  it('keeps counts, short tiers and flags only: no long text, arrays, deep nesting or prototype keys', () => {
    const kept = mergeReported(
      undefined,
      JSON.parse('{"__proto__": {"x": 1}, "a": "' + 'y'.repeat(65) + '", "b": [1], "c": {"d": {"e": {"f": 1}}}, "g": true, "h": 1e400}'),
    );
    expect(kept).to.deep.equal({ c: { d: {} }, g: true });
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
    const wide = mergeReported(undefined, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])));
    expect(Object.keys(wide!)).to.have.length(40);
    expect(mergeReported(undefined, 'not an object')).to.equal(undefined);
  });

  it('names the estimated counts as codes, or null', () => {
    expect(estimateReason([false, false])).to.equal(null);
    expect(estimateReason(['input_not_reported', false, 'output_not_final'])).to.equal('input_not_reported,output_not_final');
  });
});
