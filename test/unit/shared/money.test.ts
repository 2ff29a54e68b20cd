import { expect } from 'chai';
import { formatMicros, parseMicros } from '../../../src/shared/money.ts';

describe('decimal <-> micro-units', () => {
  it('parses exactly, whatever the number of decimals up to six', () => {
    expect(parseMicros('3')).to.equal(3_000_000n);
    expect(parseMicros('3.00')).to.equal(3_000_000n);
    expect(parseMicros('0.000003')).to.equal(3n);
    expect(parseMicros('0.1')).to.equal(100_000n);
    expect(parseMicros('1000000.5')).to.equal(1_000_000_500_000n);
    expect(parseMicros('92233720368.547758')).to.equal(92_233_720_368_547_758n);
  });

  it('refuses what is not a plain non-negative decimal', () => {
    for (const bad of ['1.0000001', '-1', '1e3', ' 1', '1 ', '', '.5', '1.', '0x10', 'NaN', '1,5']) {
      expect(() => parseMicros(bad), bad).to.throw();
    }
  });

  it('gives the same amount for a decimal read again, past the bound of those it remembers, and refuses a bad one every time', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5000; i++) expect(parseMicros(`${i}.5`)).to.equal(BigInt(i) * 1_000_000n + 500_000n);
      expect(() => parseMicros('1e3')).to.throw();
    }
  });

  it('formats with six decimals and keeps the sign', () => {
    expect(formatMicros(3_000_000n)).to.equal('3.000000');
    expect(formatMicros(3n)).to.equal('0.000003');
    expect(formatMicros(0n)).to.equal('0.000000');
    expect(formatMicros(-1_500_000n)).to.equal('-1.500000');
    expect(formatMicros(12_345_678_901_234_567n)).to.equal('12345678901.234567');
  });
});
