// Real processes, real signals: what happens to money when a gateway is stopped, killed, or loses
// its database in the middle of streams. Every test ends by restarting a gateway on the same data
// and proving through the admin API that nothing is held and every stream was charged once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect } from 'chai';
import { getTestDatabase, resetDatabase, testDatabaseUrlInUse, usingPostgres } from '../helpers/db.ts';
import { CHILD_ADMIN_TOKEN, fundedCustomer, openStream, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const HAIKU = 'sandbox/claude-haiku';
/**
 * Heartbeat 200 ms: a live process's holds look orphaned only after a 5 s gap between heartbeats,
 * which a stall on a loaded machine does not reach; the waits for a sweep below allow 20 s.
 */
const STALE = '5';

const hostAndPort = (url: string) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) });
const viaPort = (url: string, port: number) => Object.assign(new URL(url), { port: String(port) }).toString();

/** The pid of the embedded database process a gateway process forked. */
function embeddedDatabasePid(gatewayPid: number): number {
  const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(gatewayPid)], { encoding: 'utf8' });
  const line = children.split('\n').find((l) => /embedded[/\\]server\.[jt]s/.test(l));
  if (!line) throw new Error(`no embedded database process under ${gatewayPid}:\n${children}`);
  return Number(line.trim().split(/\s+/)[0]);
}

function frozenProcess(pid: number) {
  return { stall: () => process.kill(pid, 'SIGSTOP'), resume: () => process.kill(pid, 'SIGCONT') };
}

/** How many charges wait in a gateway's outbox (one JSON line each). */
function outboxEntries(dataDir: string): number {
  const outbox = `${dataDir}/outbox`;
  return fs
    .readdirSync(outbox)
    .map((f) => fs.readFileSync(`${outbox}/${f}`, 'utf8').trim().split('\n').filter(Boolean).length)
    .reduce((a, b) => a + b, 0);
}

type Inflight = { ref?: string; charge?: string };
/** Open requests with something delivered in grant checkpoints (`progress.inflight`), by request ref. */
const delivering = (inflight: Inflight[] | undefined) => (inflight ?? []).filter((d) => d.ref && BigInt(d.charge ?? '0') > 0n).map((d) => d.ref!);

/**
 * Waits until the database holds a checkpoint, written by `gateway`, of the `streams` requests it
 * has open for the customer, each with something delivered: what the sweeper charges if the process
 * dies now. A starved process may not have had a heartbeat tick yet, however long the test slept.
 * Call it once every stream has delivered something (openStream returns after the first delta).
 */
async function checkpointed(gateway: ChildGateway, customerId: string, streams: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  const wait = async (what: string) => {
    if (Date.now() > deadline) throw new Error(`no checkpoint after 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  };
  if (usingPostgres()) {
    // The grants of this process (another gateway may serve the same customer), read directly.
    const db = await getTestDatabase();
    for (;;) {
      const rows = await db('reservations as r')
        .join('gateway_instances as i', 'i.id', 'r.owner')
        .where({ 'r.customer_id': customerId, 'r.kind': 'grant', 'r.status': 'pending', 'i.pid': gateway.child.pid })
        .select('r.progress');
      const seen = new Set(rows.flatMap((r: { progress: { inflight?: Inflight[] } | null }) => delivering(r.progress?.inflight))).size;
      if (seen >= streams) return;
      await wait(`${seen} of ${streams} streams`);
    }
  }
  // The embedded database serves its gateway's one connection only: ask the gateway what it would
  // be charged (the admin list's `delivered`). Every stream has delivered already, so the first
  // checkpoint after this call covers them all; while they flow, each checkpoint moves the sum.
  const charged = async () => {
    const list = await gateway.admin('GET', `/admin/v1/reservations?customer_id=${customerId}&status=pending&limit=100`);
    expect(list.status).to.equal(200);
    return (list.body.data as Array<{ delivered: string | null }>).reduce((sum, r) => sum + Math.round(Number(r.delivered ?? 0) * 1e6), 0);
  };
  const before = await charged();
  while ((await charged()) === before) await wait('the delivered amount did not move');
}

describe(`gateway processes under SIGTERM, kill -9 and a database outage (${usingPostgres() ? 'PostgreSQL' : 'embedded database'})`, function () {
  this.timeout(120_000);
  const started: ChildGateway[] = [];
  let databaseUrl: string | undefined;

  before(async () => {
    if (usingPostgres()) {
      await resetDatabase(await getTestDatabase());
      databaseUrl = testDatabaseUrlInUse();
    }
  });
  afterEach(async () => {
    for (const gateway of started.splice(0)) {
      if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
    if (usingPostgres()) await resetDatabase(await getTestDatabase());
  });

  const start = async (env: Record<string, string> = {}, dataDir?: string, url = databaseUrl) => {
    const gateway = await startChildGateway({ ...(dataDir ? { dataDir } : {}), env: { DATABASE_URL: url, GRANT_IDLE_MS: '500', ...env } });
    started.push(gateway);
    return gateway;
  };

  /** The money of `customerId` as a fresh gateway on the same data sees it, once nothing is held. */
  async function books(dataDir: string, customerId: string, env: Record<string, string> = {}) {
    const gateway = await start({ HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: STALE, ...env }, dataDir);
    const deadline = Date.now() + 20_000;
    let wallet: any;
    for (;;) {
      wallet = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
      if (wallet.reserved === '0.000000' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
    const reconciliation = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
    // A request is charged by a `settle` of its own hold or a `charge` from its process's grant;
    // grants themselves are reserved and released around them.
    const charges = journal.filter((e) => e.kind === 'settle' || e.kind === 'charge');
    const releases = journal.filter((e) => e.kind === 'release' && !String(e.reservation_ref).startsWith('gr_'));
    return { gateway, wallet, journal, reconciliation, settles: charges, releases };
  }

  it('SIGTERM: readiness fails at once, open streams run to their end, all are settled, exit 0', async () => {
    const gateway = await start({ SHUTDOWN_GRACE_SECONDS: '30' });
    const { customerId, key } = await fundedCustomer(gateway, '10.00');
    const streams = await Promise.all(Array.from({ length: 20 }, (_, i) => openStream(gateway.url, key, HAIKU, `s${i} [[sim gap_ms=100 deltas=20]]`)));
    gateway.child.kill('SIGTERM');
    let ready = await fetch(`${gateway.url}/readyz`);
    for (const deadline = Date.now() + 2000; ready.status === 200 && Date.now() < deadline; ready = await fetch(`${gateway.url}/readyz`))
      await new Promise((r) => setTimeout(r, 20));
    expect(ready.status).to.equal(503); // as soon as the signal is handled, not at the end of the drain
    expect(((await ready.json()) as any).checks.accepting).to.equal('error');
    const texts = await Promise.all(streams.map((s) => s.text));
    for (const text of texts) expect(text).to.include('event: message_stop');
    expect(await gateway.exited).to.equal(0);

    const { wallet, settles, releases, reconciliation } = await books(gateway.dataDir, customerId);
    expect(wallet.reserved).to.equal('0.000000');
    expect(settles).to.have.length(20);
    expect(releases).to.have.length(0);
    for (const settle of settles) expect(settle.purpose.ending).to.equal('complete');
    expect(reconciliation.ok).to.equal(true);
  });

  it('SIGTERM past the grace period: open streams are cut with an error event and settled for what they delivered', async () => {
    const gateway = await start({ SHUTDOWN_GRACE_SECONDS: '1' });
    const { customerId, key } = await fundedCustomer(gateway, '10.00');
    const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => openStream(gateway.url, key, HAIKU, `s${i} [[sim gap_ms=200 deltas=200]]`)));
    const stopAt = Date.now();
    gateway.child.kill('SIGTERM');
    const texts = await Promise.all(streams.map((s) => s.text));
    for (const text of texts) {
      expect(text).to.not.include('event: message_stop');
      expect(text).to.match(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"The gateway is restarting/);
    }
    expect(await gateway.exited).to.equal(0);
    expect(Date.now() - stopAt).to.be.lessThan(15_000);

    const { wallet, settles, reconciliation } = await books(gateway.dataDir, customerId);
    expect(wallet.reserved).to.equal('0.000000');
    expect(settles).to.have.length(10);
    for (const settle of settles) {
      expect(settle.purpose.ending).to.equal('shutdown');
      expect(Number(settle.amount)).to.be.greaterThan(0);
    }
    expect(reconciliation.ok).to.equal(true);
  });

  it('kill -9 mid-stream: the holds are swept once the process is gone, charged for what was delivered', async () => {
    const gateway = await start({ HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: STALE });
    const { customerId, key } = await fundedCustomer(gateway, '10.00');
    const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => openStream(gateway.url, key, HAIKU, `s${i} [[sim gap_ms=200 deltas=200]]`)));
    await checkpointed(gateway, customerId, 10); // a heartbeat tick checkpointed what was delivered
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    await Promise.all(streams.map((s) => s.text));

    const { wallet, settles, releases, reconciliation, gateway: next } = await books(gateway.dataDir, customerId);
    expect(wallet.reserved).to.equal('0.000000');
    expect(releases).to.have.length(0);
    expect(settles).to.have.length(10);
    for (const settle of settles) {
      expect(settle.purpose).to.include({ ending: 'owner_gone', swept: true });
      expect(Number(settle.amount)).to.be.greaterThan(0);
      // The checkpoint's upstream cost rides with the sweeper's charge (the route's cost: the operator's margin).
      expect(settle.purpose.upstream_cost).to.include({ provider: 'sandbox-anthropic' });
      expect(BigInt(settle.purpose.upstream_cost.amount) > 0n).to.equal(true);
    }
    expect(reconciliation.ok).to.equal(true);
    let interrupted: any[] = [];
    for (const deadline = Date.now() + 5000; interrupted.length < 10 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const logs = (await next.admin('GET', `/admin/v1/request-logs?customer_id=${customerId}&limit=50`)).body.data as any[];
      interrupted = logs.filter((l) => l.interrupted && l.status === 499); // written by the sweeper, a moment after the settle
    }
    expect(interrupted).to.have.length(10);
  });

  if (usingPostgres()) {
    it('two gateways serve one customer from their grants; one is killed (-9): the other goes on serving and sweeps its grant, charging what it delivered', async () => {
      const env = { HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: STALE };
      const [doomed, survivor] = [await start(env), await start(env)];
      const { customerId, key } = await fundedCustomer(survivor, '10.00');
      const onDoomed = await Promise.all(Array.from({ length: 5 }, (_, i) => openStream(doomed.url, key, HAIKU, `d${i} [[sim gap_ms=200 deltas=200]]`)));
      const onSurvivor = await Promise.all(Array.from({ length: 5 }, (_, i) => openStream(survivor.url, key, HAIKU, `s${i} [[sim gap_ms=100 deltas=20]]`)));
      const grants = await (await getTestDatabase())('reservations').where({ customer_id: customerId, kind: 'grant', status: 'pending' }).select('owner');
      expect(new Set(grants.map((g) => g.owner)).size).to.equal(2); // each process holds its own grant
      await checkpointed(doomed, customerId, 5); // a heartbeat tick checkpointed what was delivered
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      await Promise.all(onDoomed.map((s) => s.text));
      for (const text of await Promise.all(onSurvivor.map((s) => s.text))) expect(text).to.include('event: message_stop');
      // The survivor serves on while the dead process's grant still holds part of the balance.
      expect(await (await openStream(survivor.url, key, HAIKU, 'after [[sim deltas=2]]')).text).to.include('event: message_stop');

      let wallet: any;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        wallet = (await survivor.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
        if (wallet.reserved === '0.000000') break;
      }
      expect(wallet.reserved).to.equal('0.000000'); // the dead grant swept, the live one given back when idle
      const journal = (await survivor.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
      const charges = journal.filter((e) => e.kind === 'settle' || e.kind === 'charge');
      const swept = charges.filter((c) => c.purpose.swept === true);
      expect(swept).to.have.length(5);
      for (const charge of swept)
        expect(charge.purpose).to.include({ ending: 'owner_gone', model: HAIKU }).and.have.nested.property('upstream_cost.provider', 'sandbox-anthropic');
      expect(charges.filter((c) => c.purpose.ending === 'complete')).to.have.length(6);
      for (const charge of charges) expect(Number(charge.amount)).to.be.greaterThan(0);
      const debits = charges.reduce((sum, c) => sum + Math.round(Number(c.amount) * 1e6), 0);
      expect(Math.round(Number(wallet.debits) * 1e6)).to.equal(debits); // every charge once, nothing else
      expect((await survivor.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
    });

    it('a database outage during settle: streams finish, their charges wait in the outbox, and land once the database is back', async () => {
      const target = new URL(databaseUrl!);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const viaProxy = new URL(databaseUrl!);
      viaProxy.port = String(proxy.port);
      try {
        const gateway = await start({ HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: '600' }, undefined, viaProxy.toString());
        const { customerId, key } = await fundedCustomer(gateway, '10.00');
        const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => openStream(gateway.url, key, HAIKU, `s${i} [[sim gap_ms=100 deltas=20]]`)));
        proxy.cut();
        const texts = await Promise.all(streams.map((s) => s.text));
        for (const text of texts) expect(text).to.include('event: message_stop');
        // Settles fail and go to the outbox.
        for (const deadline = Date.now() + 10_000; outboxEntries(gateway.dataDir) < 10 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
        expect(outboxEntries(gateway.dataDir)).to.equal(10);
        proxy.restore();

        const deadline = Date.now() + 30_000;
        let wallet: any;
        for (;;) {
          wallet = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
          if (wallet?.reserved === '0.000000' || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 300));
        }
        expect(wallet.reserved).to.equal('0.000000');
        const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
        const settles = journal.filter((e) => e.kind === 'settle' || e.kind === 'charge');
        expect(settles).to.have.length(10);
        expect(new Set(settles.map((s) => s.amount)).size).to.equal(1); // same request, same usage, same charge
        expect(Number(settles[0].amount)).to.be.greaterThan(0);
        expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
        expect(fs.readdirSync(`${gateway.dataDir}/outbox`)).to.deep.equal([]);
      } finally {
        await proxy.close();
      }
    });
  }
  it('a stalled database (frozen, answering nothing): requests that need it get a 503 within the query timeout, streams finish, their charges wait in the outbox and land once it answers again', async () => {
    const proxy = usingPostgres() ? await startTcpProxy(hostAndPort(databaseUrl!)) : undefined;
    try {
      const gateway = await start(
        { HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: '600', DB_QUERY_TIMEOUT_MS: '1000' },
        undefined,
        proxy ? viaPort(databaseUrl!, proxy.port) : databaseUrl,
      );
      // The embedded database is the gateway's child process: SIGSTOP freezes it as a hung disk would.
      const database = proxy ? { stall: () => proxy.stall(), resume: () => proxy.restore() } : frozenProcess(embeddedDatabasePid(gateway.child.pid!));
      const { customerId, key } = await fundedCustomer(gateway, '10.00');
      const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => openStream(gateway.url, key, HAIKU, `s${i} [[sim gap_ms=100 deltas=20]]`)));
      database.stall();
      try {
        const texts = await Promise.all(streams.map((s) => s.text));
        for (const text of texts) expect(text).to.include('event: message_stop');
        // An operator's read needs the database: a clear 503 to retry, not a hang and not a 500.
        const wallet = await fetch(`${gateway.url}/admin/v1/customers/${customerId}/wallet`, {
          headers: { authorization: `Bearer ${CHILD_ADMIN_TOKEN}` },
          signal: AbortSignal.timeout(15_000),
        });
        expect(wallet.status).to.equal(503);
        expect(wallet.headers.get('retry-after')).to.equal('1');
        expect(((await wallet.json()) as any).error).to.deep.include({ type: 'api_error', code: 'database_unavailable' });
        for (const deadline = Date.now() + 10_000; outboxEntries(gateway.dataDir) < 10 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
        expect(outboxEntries(gateway.dataDir)).to.equal(10); // every charge is durable on disk while the database is away
      } finally {
        database.resume();
      }

      const deadline = Date.now() + 30_000;
      let wallet: any;
      for (;;) {
        const answer = await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`);
        wallet = answer.body;
        if ((answer.status === 200 && wallet.reserved === '0.000000') || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(wallet.reserved).to.equal('0.000000');
      const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
      const charges = journal.filter((e) => e.kind === 'settle' || e.kind === 'charge');
      expect(charges).to.have.length(10);
      expect(new Set(charges.map((c) => c.amount)).size).to.equal(1);
      expect(Number(wallet.debits)).to.equal(10 * Number(charges[0].amount));
      expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
      expect(fs.readdirSync(`${gateway.dataDir}/outbox`)).to.deep.equal([]);
      // And the gateway serves again, on the same process.
      expect(await openStream(gateway.url, key, HAIKU, 'after [[sim deltas=2]]').then((s) => s.text)).to.include('event: message_stop');
    } finally {
      await proxy?.close();
    }
  });
});
