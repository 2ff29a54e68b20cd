import { expect } from 'chai';
import { newRequestId, randomBase62, requestIdTime } from '../../../src/shared/ids.ts';

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

describe('request ids: the arrival time, then randomness', () => {
  it('keep the req_ + 24 base62 shape, carry the millisecond they were minted at, and sort by it', () => {
    const times = [0, 1, 61, 62, Date.UTC(2026, 10, 28, 12, 0, 0, 412), Date.now(), 62 ** 8 - 1];
    for (const at of times) {
      const id = newRequestId(at);
      expect(id).to.match(/^req_[0-9A-Za-z]{24}$/);
      expect(requestIdTime(id).getTime(), id).to.equal(at);
    }
    const ordered = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 0, 0, 1), Date.UTC(2027, 5, 1)].map((at) => newRequestId(at));
    expect([...ordered].sort()).to.deep.equal(ordered);
    expect(newRequestId(1000)).to.not.equal(newRequestId(1000)); // 16 random digits after the time
  });

  it('date anything that is not a request id at the epoch', () => {
    for (const other of ['req_short', 'vt_0123456789abcdefghijklmn', 'req_0123456789abcdefghijklm!', ''])
      expect(requestIdTime(other).getTime(), other).to.equal(0);
  });
});
