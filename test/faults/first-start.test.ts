// The first start on an empty database, as `npm start` and a production start (`npm run serve`,
// the container) each meet it: a funded demo key exists only beside the sandbox providers, so a
// production database never gets a customer nobody created, and its logs never carry a live key.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { getTestDatabase, resetDatabase, testDatabaseUrlInUse, usingPostgres } from '../helpers/db.ts';

/** A gateway process on an empty database: this test process's PostgreSQL database emptied, or a fresh embedded one. */
async function firstStart(sandbox: boolean): Promise<ChildGateway> {
  let databaseUrl: string | undefined;
  if (usingPostgres()) {
    await resetDatabase(await getTestDatabase());
    databaseUrl = testDatabaseUrlInUse();
  }
  return startChildGateway({ env: { SANDBOX: String(sandbox), DATABASE_URL: databaseUrl }, emptyDataDir: true });
}

async function stop(gateway: ChildGateway): Promise<void> {
  gateway.child.kill('SIGTERM');
  await gateway.exited;
  fs.rmSync(gateway.dataDir, { recursive: true, force: true });
}

describe('first start on an empty database', function () {
  this.timeout(90_000);
  afterEach(async () => {
    if (usingPostgres()) await resetDatabase(await getTestDatabase());
  });

  it('with the sandbox providers: prints a demo key that answers, on a customer with the demo credit', async () => {
    const gateway = await firstStart(true);
    try {
      const key = /API key: (sk-gw-[A-Za-z0-9]+)/.exec(gateway.output())?.[1];
      expect(key, gateway.output()).to.be.a('string');
      const models = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(models.status).to.equal(200);
      const customers = await gateway.admin('GET', '/admin/v1/customers');
      expect(customers.body.data.map((c: any) => c.name)).to.deep.equal(['Demo customer']);
      const wallet = await gateway.admin('GET', `/admin/v1/customers/${customers.body.data[0].id}/wallet`);
      expect(wallet.body.available).to.equal('10.000000');
    } finally {
      await stop(gateway);
    }
  });

  it('in production (SANDBOX=false): creates no customer and prints no key', async () => {
    const gateway = await firstStart(false);
    try {
      expect(gateway.output()).to.not.match(/sk-gw-/);
      expect(gateway.output()).to.include('Create a customer and a key');
      const customers = await gateway.admin('GET', '/admin/v1/customers');
      expect(customers.status).to.equal(200);
      expect(customers.body.data).to.deep.equal([]);
      expect(fs.existsSync(path.join(gateway.dataDir, 'demo-credentials.json'))).to.equal(false);
    } finally {
      await stop(gateway);
    }
  });

  it('the demo key reaches only sandbox models, and a start without the sandbox suspends its customer until the sandbox is back', async () => {
    const first = await firstStart(true);
    const dataDir = first.dataDir;
    const databaseUrl = usingPostgres() ? testDatabaseUrlInUse() : undefined;
    const key = String(/API key: (sk-gw-[A-Za-z0-9]+)/.exec(first.output())?.[1]);
    const keyId = /keys revoke (key_[A-Za-z0-9]+)/.exec(first.output())?.[1];
    expect(keyId, first.output()).to.be.a('string'); // the banner says how to revoke it
    const listed = (await (await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    expect(listed.data.length).to.be.greaterThan(0);
    for (const model of listed.data) expect(model.id).to.match(/^sandbox\//);
    const real = await fetch(`${first.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-sonnet-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect([403, 404]).to.include(real.status);
    first.child.kill('SIGTERM');
    await first.exited;

    // The same data in production: the key is refused, and the operator sees the customer suspended.
    const production = await startChildGateway({ dataDir, env: { SANDBOX: 'false', DATABASE_URL: databaseUrl } });
    try {
      expect(production.output()).to.not.match(/sk-gw-/);
      const refused = await fetch(`${production.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(refused.status).to.equal(403);
      const customers = (await production.admin('GET', '/admin/v1/customers')).body.data as any[];
      expect(customers.map((c) => [c.name, c.status])).to.deep.equal([['Demo customer', 'suspended']]);
    } finally {
      production.child.kill('SIGTERM');
      await production.exited;
    }
    // Beside the sandbox again, it answers again.
    const again = await startChildGateway({ dataDir, env: { SANDBOX: 'true', DATABASE_URL: databaseUrl } });
    try {
      expect((await fetch(`${again.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(200);
    } finally {
      await stop(again);
    }
  });
});
