import { expect } from 'chai';
import { parseKeysChanged } from '../../../src/customers/key-changes.ts';

describe('key change notifications: what a payload tells the key cache to forget', () => {
  it('names one key or one customer', () => {
    expect(parseKeysChanged('{"key":"key_abc"}')).to.deep.equal({ keyId: 'key_abc' });
    expect(parseKeysChanged('{"customer":"cus_abc"}')).to.deep.equal({ customerId: 'cus_abc' });
  });

  it('forgets everything when it cannot tell what changed', () => {
    for (const payload of ['', 'not json', '{}', '{"key":42}', 'null', '[]']) expect(parseKeysChanged(payload), payload).to.equal('anything');
  });
});
