// How the queue reads a provider's 429 on one customer's submission: the customer's (only its tasks
// back off) or the account's (the provider pauses for everyone), from what the provider did just before.
import { expect } from 'chai';
import { refusalScope, type LastSubmission } from '../../../src/tasks/refusals.ts';

const last = (customerId: string | null, refused: boolean, accountRefusals = 0): LastSubmission => ({ customerId, refused, accountRefusals });

describe('refusalScope', () => {
  it("is the customer's right after the provider accepted another customer's task", () => {
    expect(refusalScope(last('b', false), 'a')).to.equal('customer');
  });

  it("is the account's when refusals cross customers: right after another customer's refusal", () => {
    expect(refusalScope(last('a', true), 'b')).to.equal('account');
    expect(refusalScope(last('a', true, 3), 'b')).to.equal('account');
  });

  it("is the account's when nothing tells them apart: nothing known, or right after this customer's own acceptance", () => {
    expect(refusalScope(last(null, false), 'a')).to.equal('account');
    expect(refusalScope(last('a', false), 'a')).to.equal('account');
  });

  it("keeps the reading of this customer's own refusal just before", () => {
    expect(refusalScope(last('a', true, 0), 'a')).to.equal('customer'); // read as its own: still its own
    expect(refusalScope(last('a', true, 2), 'a')).to.equal('account'); // read as the account's: still the account's
  });
});
