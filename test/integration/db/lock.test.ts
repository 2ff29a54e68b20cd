import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { acquireLock, assertNotHeld, DataDirInUseError, holderForThisProcess, lockFileIn, type LockHolder } from '../../../src/db/embedded/lock.ts';

// The lock that admits one process per embedded data directory (src/db/embedded/lock.ts).
describe('embedded data directory lock', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-lock-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
  const writeLock = (holder: Partial<LockHolder>) =>
    fs.writeFileSync(lockFileIn(dir), JSON.stringify({ hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', ...holder }));
  const holderIn = () => JSON.parse(fs.readFileSync(lockFileIn(dir), 'utf8')) as LockHolder;

  it('records the holder, refuses a second taker naming the gateway, and is released by its holder', async () => {
    const release = await acquireLock(dir, holderForThisProcess());
    expect(holderIn()).to.include({ pid: process.pid, gatewayPid: process.ppid, hostname: os.hostname() });
    const refusal = await acquireLock(dir, holderForThisProcess()).catch((error: unknown) => error);
    expect(refusal).to.be.instanceOf(DataDirInUseError);
    expect((refusal as Error).message)
      .to.include(`gateway pid ${process.ppid} (database process ${process.pid})`)
      .and.include(holderIn().startedAt);
    expect(() => assertNotHeld(dir)).to.throw(DataDirInUseError, `gateway pid ${process.ppid}`);
    release();
    expect(fs.existsSync(lockFileIn(dir))).to.equal(false);
    assertNotHeld(dir);
  });

  it('recovers a lock whose holder is gone', async () => {
    writeLock({ pid: deadPid(), gatewayPid: deadPid() });
    assertNotHeld(dir);
    const release = await acquireLock(dir, holderForThisProcess());
    expect(holderIn().pid).to.equal(process.pid);
    release();
  });

  it('waits for a database process whose gateway is gone to finish closing, then takes over', async () => {
    const closing = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeLock({ pid: closing.pid!, gatewayPid: deadPid() });
      const tooSoon = await acquireLock(dir, holderForThisProcess(), 300).catch((error: unknown) => error);
      expect((tooSoon as Error).message).to.include('still closing');
      setTimeout(() => closing.kill('SIGKILL'), 300);
      const release = await acquireLock(dir, holderForThisProcess(), 10_000);
      expect(holderIn().pid).to.equal(process.pid);
      release();
    } finally {
      closing.kill('SIGKILL');
    }
  });

  it('lets exactly one of several processes recovering the same stale lock win', async () => {
    writeLock({ pid: deadPid(), gatewayPid: deadPid() });
    const at = Date.now() + 4000; // after every contender has started
    const contenders = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--import', 'tsx', path.join(ROOT_DIR, 'test/helpers/lock-contender.ts'), dir, String(at)], {
        cwd: ROOT_DIR,
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    try {
      const outcomes = await Promise.all(
        contenders.map(
          (child) =>
            new Promise<string>((resolve) => {
              let out = '';
              child.stdout!.on('data', (chunk: Buffer) => {
                out += chunk.toString();
                const line = out.split('\n').find((l) => l === 'won' || l.startsWith('lost'));
                if (line) resolve(line);
              });
            }),
        ),
      );
      expect(outcomes.filter((o) => o === 'won')).to.have.length(1);
      const winner = contenders[outcomes.indexOf('won')]!;
      expect(holderIn().pid).to.equal(winner.pid);
      for (const lost of outcomes.filter((o) => o !== 'won')) expect(lost).to.include(`database process ${winner.pid}`);
    } finally {
      for (const child of contenders) child.stdin!.end();
    }
  });
});
