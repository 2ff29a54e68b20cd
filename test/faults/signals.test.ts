// Ctrl-C and SIGTERM on the project's long-running commands leave nothing behind. A terminal's
// Ctrl-C sends SIGINT to the whole foreground process group; a process manager sends SIGTERM to
// the top process only (npm, which forwards it to its child). Each command runs in a new process
// group; every descendant seen while it ran must be gone afterwards and its ports free.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { migratedDataDir } from '../helpers/child-gateway.ts';
import { freePort, waitForHttp, waitForPort } from '../helpers/prism.ts';

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  zombie: boolean;
}

function processes(): Proc[] {
  const list: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      list.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]), zombie: fields[0] === 'Z' });
    } catch {
      /* gone meanwhile */
    }
  }
  return list;
}

/** The live descendants of `root` (children, grandchildren, ...), and the members of groups it leads. */
function family(root: number): number[] {
  const all = processes().filter((p) => !p.zombie);
  const found = new Set<number>();
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    for (const p of all) {
      if ((p.ppid === pid || p.pgid === pid) && p.pid !== root && !found.has(p.pid)) {
        found.add(p.pid);
        queue.push(p.pid);
      }
    }
  }
  return [...found];
}

const alive = (pid: number) => processes().some((p) => p.pid === pid && !p.zombie);

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

interface Running {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

function launch(command: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(command, args, { cwd: ROOT_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => output, exited };
}

/** Sends the signal, then waits until the top process and every descendant seen before are gone. */
async function stopAndCheck(run: Running, how: 'SIGINT to the group' | 'SIGTERM to the top process', ports: number[]): Promise<number | string> {
  const top = run.child.pid!;
  const before = family(top);
  expect(before.length, `descendants of ${top}`).to.be.greaterThan(0);
  if (how === 'SIGINT to the group') process.kill(-top, 'SIGINT');
  else process.kill(top, 'SIGTERM');
  const code = await Promise.race([run.exited, new Promise<string>((r) => setTimeout(() => r('still running after 40 s'), 40_000))]);
  const deadline = Date.now() + 10_000;
  while ([top, ...before].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const left = [top, ...before].filter(alive);
  if (left.length) for (const pid of left) process.kill(pid, 'SIGKILL'); // do not leak into the next test
  expect(left, `${how}: processes left behind\n${run.output()}`).to.deep.equal([]);
  for (const port of ports) expect(await portFree(port), `port ${port} still held`).to.equal(true);
  return code;
}

describe('signals: Ctrl-C and SIGTERM leave no process behind', function () {
  this.timeout(180_000);

  for (const how of ['SIGINT to the group', 'SIGTERM to the top process'] as const) {
    it(`npm start (build, then the gateway in the same process): ${how}`, async () => {
      const port = await freePort();
      // On the embedded database, a migrated one (no first start to wait for; first-start.test.ts
      // has the start's own tests).
      const dataDir = process.env.DATABASE_URL ? fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-signals-')) : await migratedDataDir('gateway-signals-');
      const run = launch('npm', ['start'], {
        PORT: String(port),
        DATA_DIR: dataDir,
        SANDBOX: 'true',
        LOG_LEVEL: 'info',
        VIDEO_POLLER: 'false',
        ADMIN_TOKEN: 'adm_signals_test_token',
      });
      try {
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 150_000, () => run.child.exitCode !== null);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${run.output()}`);
      }
      const models = await fetch(`http://127.0.0.1:${port}/v1/models`);
      expect(models.status).to.equal(200);
      // LOG_LEVEL=info: the access line of that request is on stdout.
      for (let i = 0; i < 50 && !run.output().includes(models.headers.get('request-id')!); i++) await new Promise((r) => setTimeout(r, 20));
      expect(run.output()).to.include(`"request_id":"${models.headers.get('request-id')}"`);
      const code = await stopAndCheck(run, how, [port]);
      expect(code, run.output()).to.equal(0); // drained and stopped, not killed
      expect(run.output()).to.include('"msg":"gateway stopped"');
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`npm run mock (the front and both Prism processes): ${how}`, async () => {
      const [publicPort, adminPort] = [await freePort(), await freePort()];
      const run = launch('npm', ['run', 'mock'], { MOCK_PORT: String(publicPort), MOCK_ADMIN_PORT: String(adminPort) });
      await waitForPort(publicPort, 90_000, () => run.child.exitCode !== null);
      await waitForPort(adminPort, 90_000, () => run.child.exitCode !== null);
      await stopAndCheck(run, how, [publicPort, adminPort]);
    });

    it(`npm run bench's child processes (scripts/lib/children.ts, each child its own group): ${how}`, async () => {
      const port = await freePort();
      const run = launch(process.execPath, ['--import', 'tsx', 'test/fixtures/signals/bench-children.ts', String(port)], {});
      for (let i = 0; i < 300 && !run.output().includes('ready'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(run.output()).to.include('ready');
      // The server, the shell and the shell's own child (the grandchild) at least.
      for (let i = 0; i < 50 && family(run.child.pid!).length < 3; i++) await new Promise((r) => setTimeout(r, 100));
      expect(family(run.child.pid!).length).to.be.at.least(3);
      const code = await stopAndCheck(run, how, [port]);
      expect(code).to.equal(how === 'SIGINT to the group' ? 130 : 143);
    });
  }
});
