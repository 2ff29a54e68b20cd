import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.ts';
import type { Ledger } from '../../../src/ledger/service.ts';
import { createSettler } from '../../../src/holds/settler.ts';

/** A ledger whose database is down until `up()`; it records what it applied. */
function flakyLedger() {
  let down = true;
  const applied: string[] = [];
  const fail = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const ledger = {
    settle: async ({ ref, charge }: { ref: string; charge: { amount: bigint } }) => {
      if (down) throw fail();
      applied.push(`settle ${ref} ${charge.amount}`);
      return { ref, charged: charge.amount, debt: 0n, freeUnitsUsed: 0n, freeAmount: 0n, replayed: false };
    },
    release: async ({ ref }: { ref: string }) => {
      if (down) throw fail();
      applied.push(`release ${ref}`);
      return { ref, released: 1n, replayed: false };
    },
    charge: async ({ ref, amount }: { ref: string; amount: bigint }) => {
      if (down) throw fail();
      applied.push(`charge ${ref} ${amount}`);
      return { ref, charged: amount, debt: 0n, replayed: false, fromGrant: true };
    },
  };
  return { ledger: ledger as unknown as Ledger, applied, up: () => (down = false) };
}

describe('the settler', () => {
  const logger = createLogger('silent');

  it('keeps settlements the database refused in an fsynced outbox, applies them in order once it is back, then empties it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-'));
    const { ledger, applied, up } = flakyLedger();
    const settler = createSettler({ ledger, logger, outboxDir: dir, instanceId: 'gw_test', retryMs: 20 });
    const results = [
      settler.submit({ kind: 'settle', ref: 'req_a', charge: { amount: 5n } }),
      settler.submit({ kind: 'release', ref: 'req_b' }),
      settler.submit({ kind: 'charge', ref: 'req_c', grantRef: 'gr_1', customerId: 'cus_1', amount: 7n }),
    ];
    await new Promise((r) => setTimeout(r, 50));
    expect(settler.waiting()).to.equal(3);
    const [file] = fs.readdirSync(dir);
    expect(
      fs
        .readFileSync(path.join(dir, file!), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).ref),
    ).to.deep.equal(['req_a', 'req_b', 'req_c']);
    up();
    await Promise.all(results);
    expect(applied).to.deep.equal(['settle req_a 5', 'release req_b', 'charge req_c 7']);
    expect(fs.readdirSync(dir)).to.deep.equal([]);
    settler.close();
  });

  it('replays the outbox a dead process of this host left, amounts exact (bigint)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-'));
    const dead = `${os.hostname()}-999999-gw_dead.jsonl`;
    fs.writeFileSync(path.join(dir, dead), `${JSON.stringify({ kind: 'settle', ref: 'req_z', charge: { amount: { $bigint: '9007199254740993' } } })}\n`);
    const { ledger, applied, up } = flakyLedger();
    up();
    const settler = createSettler({ ledger, logger, outboxDir: dir, instanceId: 'gw_live' });
    expect(await settler.replayOrphans()).to.equal(1);
    expect(applied).to.deep.equal(['settle req_z 9007199254740993']);
    expect(fs.readdirSync(dir)).to.deep.equal([]);
    settler.close();
  });
});
