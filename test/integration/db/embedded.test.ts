import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { migratedDataDir } from '../../helpers/child-gateway.ts';
import { gatewayEntry } from '../../helpers/gateway-process.ts';
import { freePort, startListening, waitForHttp, type RunningProcess } from '../../helpers/prism.ts';

// The embedded database runs in a process of its own beside each gateway process (src/db/embedded).
// Real gateway processes on one DATA_DIR, as an operator runs them, whichever database the rest of
// the suite uses: what they see is exit codes, stderr, HTTP answers and wallet amounts.
describe('embedded database across gateway processes', function () {
  this.timeout(120_000);
  const ADMIN_TOKEN = 'adm_embedded_test';
  let dataDir: string;
  const started: RunningProcess[] = [];

  // One DATA_DIR for every test (a new database costs seconds): each test starts its gateways on
  // what the one before left, and stops or kills them all.
  before(async () => {
    dataDir = await migratedDataDir('gateway-embedded-');
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const env = (port: number) => ({ PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN, SANDBOX: 'false', DATABASE_URL: '', LOG_LEVEL: 'warn' });
  const gatewayArgs = gatewayEntry();

  const byUrl = new Map<string, RunningProcess>();

  /**
   * A gateway on a free port, once its own /readyz answers 200 (an open port is not enough: see
   * waitForHttp). The port is free when chosen but may be taken before the gateway binds it:
   * then it exits with EADDRINUSE and starts again on another.
   */
  async function startGateway(): Promise<RunningProcess & { url: string }> {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const running = await startListening(process.execPath, gatewayArgs, port, env(port));
      started.push(running);
      const url = `http://127.0.0.1:${port}`;
      byUrl.set(url, running);
      try {
        await waitForHttp(`${url}/readyz`, 60_000, () => running.child.exitCode !== null);
        return { ...running, url };
      } catch (error) {
        await running.stop();
        if (attempt < 3 && /EADDRINUSE/.test(running.output())) continue;
        throw new Error(`the gateway on ${url}: ${(error as Error).message} (exit code ${running.child.exitCode}):\n${running.output()}`);
      }
    }
  }

  async function admin(url: string, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(url + pathname, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((error: Error) => {
      // What the gateway said before it stopped answering is what explains it.
      const gateway = byUrl.get(url);
      throw new Error(
        `${method} ${pathname}: ${error.message} (${String(error.cause)}); gateway exit code ${gateway?.child.exitCode}, output:\n${gateway?.output()}`,
      );
    });
    return { status: response.status, body: await response.json() };
  }

  /** A customer with `count` acknowledged top-ups of 1.00 each, made at once. */
  async function customerWithTopUps(url: string, count: number): Promise<string> {
    const customer = await admin(url, 'POST', '/admin/v1/customers', { name: 'Durable Co' });
    expect(customer.status).to.equal(201);
    const topUps = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        admin(url, 'POST', `/admin/v1/customers/${customer.body.id}/credits`, { amount: '1.00', reference: `${customer.body.id}-${i}` }),
      ),
    );
    expect(topUps.map((t) => t.status)).to.deep.equal(topUps.map(() => 201));
    return customer.body.id;
  }

  const credits = async (url: string, customerId: string) => (await admin(url, 'GET', `/admin/v1/customers/${customerId}/wallet`)).body.credits;
  const lockFile = () => path.join(dataDir, 'pglite', 'gateway.lock');
  const databasePid = () => JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid as number;
  const exitOf = (child: RunningProcess['child']) =>
    child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  it('refuses a second gateway on the same DATA_DIR at once, naming the one that holds it', async () => {
    const first = await startGateway();
    const second = spawn(process.execPath, gatewayArgs, {
      cwd: ROOT_DIR,
      env: { ...process.env, ...env(await freePort()) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
    expect(code).to.equal(1);
    expect(stderr).to.match(new RegExp(`in use by gateway pid ${first.child.pid} \\(database process \\d+\\) on .* since \\d{4}-`));
    expect(stderr.trim().split('\n')).to.have.length(1); // one line, no stack trace
    expect((await fetch(`${first.url}/readyz`)).status).to.equal(200);
  });

  it('keeps what a gateway wrote across a restart, and frees the directory when it stops', async () => {
    const first = await startGateway();
    const customerId = await customerWithTopUps(first.url, 3);
    await first.stop(); // SIGTERM: a graceful shutdown
    expect(first.child.exitCode).to.equal(0);
    expect(fs.existsSync(lockFile())).to.equal(false);
    const second = await startGateway();
    expect(await credits(second.url, customerId)).to.equal('3.000000');
  });

  it('after kill -9 of a gateway, its database process ends and a new gateway has every acknowledged top-up', async () => {
    const first = await startGateway();
    const database = databasePid();
    const customerId = await customerWithTopUps(first.url, 20);
    process.kill(first.child.pid!, 'SIGKILL'); // right after the last acknowledgement
    await exitOf(first.child);
    await waitUntilGone(database, 10_000);
    const second = await startGateway();
    expect(await credits(second.url, customerId)).to.equal('20.000000');
  });

  it('recovers the stale lock and every acknowledged top-up when the database process is killed too', async () => {
    const first = await startGateway();
    const database = databasePid();
    const customerId = await customerWithTopUps(first.url, 20);
    process.kill(database, 'SIGKILL'); // no clean close: what is committed must be on its way to disk
    process.kill(first.child.pid!, 'SIGKILL');
    await exitOf(first.child);
    await waitUntilGone(database, 10_000);
    expect(databasePid()).to.equal(database); // the dead holder's lock is still there
    const second = await startGateway();
    expect(await credits(second.url, customerId)).to.equal('20.000000');
    expect(databasePid()).to.not.equal(database);
  });
});

/** Waits until `pid` has exited (an exited process not yet reaped by init counts as gone). */
async function waitUntilGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let state: string | undefined;
    try {
      process.kill(pid, 0);
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(') ') + 2)[0];
    } catch {
      return;
    }
    if (state === 'Z') return;
    if (Date.now() > deadline) throw new Error(`process ${pid} still runs ${timeoutMs} ms later`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
