// Issue 22, 1: a live gateway cut off from its database for longer than the stale time while its
// streams flow. Another gateway's sweeper takes it for dead and ends its holds at their last
// checkpoints; the cut-off process fences itself (no new holds, 503) and its streams run to their
// end. When the database returns, the owner's real usage is charged in full: the sweeper's charges
// were floors, the differences are posted on their own references, and the request log tells what
// the clients received. Two real gateway processes on PostgreSQL, one behind a TCP proxy that
// black-holes its connections.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { getTestDatabase, resetDatabase, testDatabaseUrlInUse, usingPostgres } from '../helpers/db.ts';
import { fundedCustomer, openStream, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const HAIKU = 'sandbox/claude-haiku';
/** Each stream runs about 15 s: past the 5 s stale time, the sweep and the fence. */
const LONG = '[[sim gap_ms=100 deltas=150]]';

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  for (const deadline = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}

/** The ref a journal entry charges for: the request id after its kind's prefix. */
const requestOf = (entry: { reference: string }) => entry.reference.slice(entry.reference.indexOf(':') + 1);

if (usingPostgres())
  describe('a gateway partitioned from PostgreSQL past the stale time while its streams flow', function () {
    this.timeout(180_000);
    const started: ChildGateway[] = [];
    let db: Knex;

    before(async () => {
      db = await getTestDatabase();
      await resetDatabase(db);
    });
    after(async () => {
      for (const gateway of started) {
        if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGKILL');
        await gateway.exited;
      }
      await resetDatabase(db);
    });

    it('charges every delivered token once, fences the cut-off process, and logs what the clients got', async () => {
      const url = new URL(testDatabaseUrlInUse()!);
      const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      try {
        const env = { HEARTBEAT_MS: '200', STALE_RESERVATION_SECONDS: '5', DB_QUERY_TIMEOUT_MS: '1000', GRANT_IDLE_MS: '500' };
        const viaProxy = Object.assign(new URL(url.toString()), { port: String(proxy.port) }).toString();
        // A serves from its cache (keys known for a minute), so only its own fence can refuse.
        const a = await startChildGateway({ env: { ...env, DATABASE_URL: viaProxy, KEY_CACHE_MS: '60000', KEY_WARM_MS: '0' } });
        started.push(a);
        const b = await startChildGateway({ env: { ...env, DATABASE_URL: url.toString() } });
        started.push(b);
        const { customerId, key } = await fundedCustomer(b, '10.00');
        // A second key with a limit: its requests hold on their own reservations, not a grant.
        const limited = await b.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, {});
        expect((await b.admin('PATCH', `/admin/v1/api-keys/${limited.body.id}`, { limits: { requests_per_minute: 1000 } })).status).to.equal(200);

        const onA = await Promise.all([
          ...[0, 1, 2].map((i) => openStream(a.url, key, HAIKU, `grant ${i} ${LONG}`)),
          ...[0, 1, 2].map((i) => openStream(a.url, limited.body.key, HAIKU, `limit ${i} ${LONG}`)),
        ]);
        const reference = await openStream(b.url, key, HAIKU, `other 0 ${LONG}`); // same usage, served normally

        const instanceA = (await db('gateway_instances').where({ pid: a.child.pid }).first('id')).id as string;
        // Wait until A's heartbeat has checkpointed what each of its six streams delivered.
        await until('checkpoints of the six streams on A', 20_000, async () => {
          const held = await db('reservations').where({ owner: instanceA, status: 'pending' }).select('kind', 'progress');
          const inGrant = held.filter((r) => r.kind === 'grant').flatMap((r) => (r.progress?.inflight ?? []).filter((d: any) => BigInt(d.charge ?? 0) > 0n));
          const own = held.filter((r) => r.kind === 'request' && BigInt(r.progress?.charge ?? 0) > 0n);
          return inGrant.length === 3 && own.length === 3;
        });

        proxy.stall(); // A's connections go silent: its heartbeat stops landing
        // B's sweeper takes A for dead and ends every hold A owns, at the checkpoints.
        await until(
          "B's sweep of A's holds",
          30_000,
          async () => (await db('reservations').where({ owner: instanceA, status: 'pending' }).count('* as n'))[0]!.n == 0,
        );
        // A has fenced itself: a paid request is refused (its key is cached and its grant has room,
        // so without the fence it would be served and drawn from a grant that is gone).
        const refused = await fetch(`${a.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ model: HAIKU, max_tokens: 10, messages: [{ role: 'user', content: 'while fenced' }] }),
        });
        expect(refused.status).to.equal(503);
        expect(((await refused.json()) as any).error.type).to.equal('api_error');

        // The clients receive their whole streams all the same.
        for (const text of await Promise.all([...onA, reference].map((s) => s.text))) expect(text).to.include('event: message_stop');
        proxy.restore();

        // Once A's charges land (from its outbox), nothing is held and every request is charged once, in full.
        await until('every hold ended and every charge posted', 60_000, async () => {
          const pending = (await db('reservations').where({ customer_id: customerId, status: 'pending' }).count('* as n'))[0]!.n;
          const trueUps = (await db('ledger_entries').where({ customer_id: customerId, kind: 'true_up' }).count('* as n'))[0]!.n;
          return pending == 0 && Number(trueUps) === 6;
        });
        const journal = (await b.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[];
        const perRequest = new Map<string, bigint>();
        for (const entry of journal.filter((e) => ['settle', 'charge', 'true_up'].includes(e.kind))) {
          const micros = BigInt(Math.round(Number(entry.amount) * 1e6)) + BigInt(Math.round(Number(entry.debt) * 1e6));
          perRequest.set(requestOf(entry), (perRequest.get(requestOf(entry)) ?? 0n) + micros);
        }
        expect(journal.filter((e) => ['settle', 'charge'].includes(e.kind) && e.purpose.swept === true)).to.have.length(6); // the sweeper's floors
        expect(perRequest.size).to.equal(7);
        const totals = new Set(perRequest.values());
        expect(totals.size, JSON.stringify([...perRequest.entries()].map(([r, v]) => [r, v.toString()]))).to.equal(1); // same usage, same charge
        const full = [...totals][0]!;
        expect(full > 0n).to.equal(true);
        const wallet = (await b.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
        expect(wallet).to.include({ reserved: '0.000000', debt: '0.000000' });
        expect(BigInt(Math.round(Number(wallet.debits) * 1e6))).to.equal(7n * full);

        // The request log says what each client received: complete, measured usage, the full cost.
        let logged: any[] = [];
        const rows = await until('seven request log rows from the owners', 30_000, async () => {
          // The streams' rows (the fenced request has its own 503 row).
          logged = ((await b.admin('GET', `/admin/v1/request-logs?customer_id=${customerId}&limit=50`)).body.data as any[]).filter((r) => r.stream);
          return logged.length === 7 && logged.every((r) => r.status === 200) && logged;
        }).catch((error: Error) => {
          throw new Error(`${error.message}: ${JSON.stringify(logged)}\n${a.output().slice(-3000)}`);
        });
        const outputs = new Set(rows.map((r) => r.output_tokens));
        expect(outputs.size).to.equal(1);
        for (const row of rows) {
          expect(row).to.include({ status: 200, error_type: null, interrupted: false, usage_estimated: false, stream: true });
          expect(BigInt(Math.round(Number(row.cost) * 1e6))).to.equal(full);
        }
        expect((await b.admin('GET', '/admin/v1/ledger/reconciliation')).body).to.deep.include({ ok: true });
        // And A serves again once its lease is renewed.
        const after = await until('A serving again', 20_000, async () => {
          const answer = await fetch(`${a.url}/v1/messages`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ model: HAIKU, max_tokens: 10, messages: [{ role: 'user', content: 'after' }] }),
          });
          await answer.text();
          return answer.status === 200 && answer;
        });
        expect(after.status).to.equal(200);
      } finally {
        await proxy.close();
      }
    });
  });
