// The suite's reset between tests (test/helpers/gateway.ts, test/helpers/db.ts): every file shares
// one gateway and relies on reset() to leave the database as a new gateway's would be. It deletes
// rows rather than truncating tables and keeps the catalogue's price versions when nothing changed
// them, so what it must still guarantee is checked here: every table empty but the heartbeat and
// the catalogue's versions, sequences started again, and the catalogue's prices the ones charged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { fundedCustomer } from '../../helpers/factories.ts';
import { SAMPLE_CATALOGUE, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { HAIKU } from '../../helpers/limits.ts';
import { getTestDatabase, usingPostgres } from '../../helpers/db.ts';

async function rowCounts(db: Knex): Promise<Record<string, number>> {
  const { rows } = await db.raw<{ rows: Array<{ name: string }> }>(
    `select relname as name from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and not relispartition and relname not like 'knex_migrations%' order by 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of rows) counts[name] = Number((await db(name).count<Array<{ n: string }>>('* as n'))[0]!.n);
  return counts;
}

async function ask(gateway: TestGateway, key: string): Promise<number> {
  const response = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model: HAIKU, max_tokens: 16, messages: [{ role: 'user', content: 'Say hello. [[sim output_tokens=7]]' }] }),
  });
  await response.text();
  return response.status;
}

describe(`the suite's reset between tests (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let db: Knex;
  let fresh: { counts: Record<string, number>; versions: unknown[] };

  before(async () => {
    db = await getTestDatabase();
    // A catalogue of its own: the watcher reloads on any change in its directory (the repository's
    // root sees other files' builds), and the last test checks that nothing reloaded it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reset-'));
    fs.copyFileSync(SAMPLE_CATALOGUE, path.join(dir, 'catalogue.yaml'));
    gateway = await startTestGateway({ cataloguePath: path.join(dir, 'catalogue.yaml') });
    fresh = { counts: await rowCounts(db), versions: await db('price_versions').orderBy('id').select('id', 'model_id', 'version', 'scope', 'price_hash') };
  });
  after(async () => gateway?.close());

  it('a new gateway has one heartbeat row and one list price version per model, and nothing else', () => {
    const nonEmpty = Object.entries(fresh.counts).filter(([, n]) => n > 0);
    expect(nonEmpty).to.deep.equal([
      ['gateway_instances', 1],
      ['price_versions', gateway.services.catalogue.current().models.size],
    ]);
  });

  it('after customers, keys, credits, charged requests and a plan with prices of its own, the database is as new again', async () => {
    const { customerId, key } = await fundedCustomer(gateway, { balance: '5.00' });
    expect(await ask(gateway, key)).to.equal(200);
    const plan = await gateway.admin('POST', '/admin/v1/plans', {
      name: 'Partner',
      multiplier: '0.5',
      overrides: [{ model: HAIKU, price: { input_per_mtok: '0.10', output_per_mtok: '0.20' } }],
    });
    expect(plan.status).to.equal(201);
    expect((await gateway.admin('PATCH', `/admin/v1/customers/${customerId}/pricing`, { plan_id: plan.body.id, actor: 'ops@example.com' })).status).to.equal(
      200,
    );
    expect(await ask(gateway, key)).to.equal(200);
    expect(await gateway.requestLogs(`customer_id=${customerId}`, 2)).to.have.length(2);
    const used = await rowCounts(db);
    expect(used.customers).to.equal(1);
    expect(used.ledger_entries).to.be.above(2);
    expect(used.request_logs).to.equal(2);

    await gateway.reset();

    expect(await rowCounts(db)).to.deep.equal(fresh.counts);
    expect(await db('price_versions').orderBy('id').select('id', 'model_id', 'version', 'scope', 'price_hash')).to.deep.equal(fresh.versions);
    // Sequences start again: the next journal entry is the first a new database would write.
    const again = await fundedCustomer(gateway, { balance: '1.00' });
    expect((await db('ledger_entries').min<Array<{ first: string | number | bigint }>>('id as first'))[0]!.first).to.satisfy((id: unknown) => Number(id) === 1);
    // And the list price is the one charged: what the plan made is gone from memory too.
    expect(await ask(gateway, again.key)).to.equal(200);
    await gateway.settled();
    const priced = await db('ledger_entries').where({ customer_id: again.customerId }).whereNotNull('price_version_id').distinct('price_version_id');
    expect(priced.map((row) => String(row.price_version_id))).to.deep.equal([String(gateway.services.catalogue.current().model(HAIKU)!.priceVersion.id)]);
  });

  it('after a test that left prices alone, the catalogue is not loaded again: the same versions, the same loaded catalogue', async () => {
    const before = gateway.services.catalogue.current();
    const { key } = await fundedCustomer(gateway, { balance: '1.00' });
    expect(await ask(gateway, key)).to.equal(200);
    await gateway.reset();
    expect(gateway.services.catalogue.current()).to.equal(before);
    expect(await db('price_versions').orderBy('id').select('id', 'model_id', 'version', 'scope', 'price_hash')).to.deep.equal(fresh.versions);
    expect(await rowCounts(db)).to.deep.equal(fresh.counts);
  });
});
