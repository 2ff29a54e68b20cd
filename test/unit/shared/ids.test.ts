import { expect } from 'chai';
import { randomBase62 } from '../../../src/shared/ids.ts';

describe('randomBase62: ids and secrets from a pooled CSPRNG', () => {
  it('gives the asked length in base62, different every time, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomBase62(24); // 2000 x ~25 bytes: several 4 KiB refills
      expect(id).to.match(/^[0-9A-Za-z]{24}$/);
      seen.add(id);
    }
    expect(seen.size).to.equal(2000);
    expect(randomBase62(1)).to.have.length(1);
  });

  it('uses every character about equally (rejection sampling keeps it flat)', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62 * 2000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).to.equal(62);
    for (const n of counts.values()) expect(n).to.be.within(1600, 2400); // mean 2000, sd ~44
  });
});
