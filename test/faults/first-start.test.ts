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
  return startChildGateway({ env: { SANDBOX: String(sandbox), DATABASE_URL: databaseUrl } });
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
});
