import { expect } from 'chai';
import { estimateJsonTokens, estimateTokens, TextTally } from '../../../src/domain/passthrough/estimate.ts';

describe('token estimates', () => {
  it('counts about four characters a token, and one a CJK character', () => {
    expect(estimateTokens('')).to.equal(0);
    expect(estimateTokens('abcd')).to.equal(1);
    expect(estimateTokens('abcde')).to.equal(2);
    expect(estimateTokens('你好世界')).to.equal(4);
    expect(estimateTokens('hi 你好')).to.equal(2 + 1);
  });

  it('keeps counts, not text: a tally of many pieces equals the estimate of their concatenation', () => {
    const tally = new TextTally();
    const pieces = Array.from({ length: 1000 }, (_, i) => `piece ${i} 文字 `);
    for (const piece of pieces) tally.add(piece);
    expect(tally.tokens()).to.equal(estimateTokens(pieces.join('')));
  });

  it('walks any JSON without recursion: 200,000 levels of nesting neither throw nor overflow', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(estimateJsonTokens(deep)).to.be.greaterThan(0);
  });

  it('counts numbers and booleans by their text, keys too, nulls not at all', () => {
    expect(estimateJsonTokens({ a: [1, 22, 333, true, false, null, 'x'] })).to.equal(5); // 17 characters
    expect(estimateJsonTokens(new Array(1_000_000).fill(7))).to.equal(250_000);
  });

  it('counts base64 media as a flat allowance, keys and values as text', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } };
    expect(estimateJsonTokens(image)).to.be.lessThan(2_000);
    expect(estimateJsonTokens({ url: 'data:image/png;base64,AAAA' })).to.be.greaterThan(1_500);
    expect(estimateJsonTokens({ future_block: { text: 'abcd'.repeat(100) } })).to.be.greaterThan(100);
  });
});
