import { expect } from 'chai';
import { free, openDraw, type Grant } from '../../../src/holds/grant-draw.ts';
import type { ChargeOutcome, ChargeResult, GrantFlusher } from '../../../src/holds/grant-flusher.ts';
import type { ChargeInput } from '../../../src/ledger/charge.ts';

const grant = (held: bigint): Grant => ({
  ref: 'gr_test',
  customerId: 'cus_test',
  held,
  committed: 0n,
  drawn: 0n,
  draws: new Map(),
  seq: 0,
  created: true,
  lastUsed: 0,
  closing: false,
  dirty: false,
});

/** A flusher that keeps what it was given and posts when told. */
function fakeFlusher() {
  const queued: Array<{ charge: ChargeInput; posted: (outcome: ChargeOutcome) => void }> = [];
  const flusher = {
    queue(charge: ChargeInput, posted: (outcome: ChargeOutcome) => void): Promise<ChargeResult> {
      queued.push({ charge, posted });
      return Promise.resolve({ charged: charge.amount, debt: 0n, replayed: false });
    },
  } as unknown as GrantFlusher;
  return { flusher, queued };
}

describe('a draw from a credit grant: held against the grant until it ends, once', () => {
  it('holds its bound while open and gives it back to the free part when released, once', () => {
    const g = grant(1000n);
    const { flusher, queued } = fakeFlusher();
    const draw = openDraw(g, 'req_1', 300n, { model: 'm' }, flusher);
    expect(free(g)).to.equal(700n);
    draw.release();
    draw.release();
    expect(free(g)).to.equal(1000n);
    expect(g.draws.size).to.equal(0);
    expect(queued).to.deep.equal([]);
  });

  it('queues one charge of what was used; a second charge of the same draw posts nothing', async () => {
    const g = grant(1000n);
    const { flusher, queued } = fakeFlusher();
    const draw = openDraw(g, 'req_1', 300n, {}, flusher);
    await draw.charge(120n, { ending: 'complete' });
    expect(await draw.charge(120n, {})).to.deep.equal({ charged: 0n, debt: 0n, replayed: true });
    draw.release(); // after the charge: nothing more
    expect(queued.map((q) => q.charge.amount)).to.deep.equal([120n]);
    expect(queued[0]!.charge.purpose).to.deep.equal({ ending: 'complete', reserved: '300' });
    expect(free(g)).to.equal(880n); // the charge is committed until it posts
    queued[0]!.posted('from_grant');
    expect([g.held, g.committed, free(g)]).to.deep.equal([880n, 0n, 880n]);
  });

  it('charges above its bound in full: the grant pays what no other draw holds, the balance the rest', async () => {
    const g = grant(1000n);
    const { flusher, queued } = fakeFlusher();
    const other = openDraw(g, 'req_other', 600n, {}, flusher);
    const draw = openDraw(g, 'req_1', 300n, {}, flusher);
    await draw.charge(350n, {}); // 50 over its bound: the grant's 100 free cover it
    expect([queued[0]!.charge.amount, queued[0]!.charge.fromGrant]).to.deep.equal([350n, 350n]);
    const second = openDraw(g, 'req_2', 40n, {}, flusher);
    await second.charge(200n, {}, 7n); // its 40 and the 10 left free beside the other draw: 50 from the grant, 150 beyond it
    expect(queued[1]!.charge).to.deep.include({ amount: 200n, fromGrant: 50n, priceVersionId: 7n });
    expect(queued[1]!.charge.purpose).to.deep.equal({ reserved: '40' });
    expect(free(g)).to.equal(0n);
    other.release();
    expect(free(g)).to.equal(600n);
  });

  it('a charge that found its grant gone is paid by the balance: the grant keeps its hold', async () => {
    const g = grant(1000n);
    const { flusher, queued } = fakeFlusher();
    await openDraw(g, 'req_1', 300n, {}, flusher).charge(100n, {});
    queued[0]!.posted('direct');
    expect([g.held, g.committed, free(g)]).to.deep.equal([1000n, 0n, 1000n]);
  });

  it('checkpoints what was delivered, capped at the bound, for the sweeper', () => {
    const g = grant(1000n);
    const { flusher } = fakeFlusher();
    const draw = openDraw(g, 'req_1', 300n, { model: 'm' }, flusher);
    g.dirty = false;
    draw.checkpoint(120n, { output_tokens: 10 });
    expect(g.draws.get('req_1')!.progress).to.deep.equal({ charge: 120n, usage: { output_tokens: 10 } });
    draw.checkpoint(999n, undefined);
    expect(g.draws.get('req_1')!.progress).to.deep.equal({ charge: 300n });
    expect(g.dirty).to.equal(true);
    draw.release();
    draw.checkpoint(5n, undefined); // ended: nothing to record
    expect(g.draws.has('req_1')).to.equal(false);
  });
});
