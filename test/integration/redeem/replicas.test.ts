// A code redeemed at the same moment through two gateways on one database credits once: on
// PostgreSQL two gateway processes; the embedded PGlite admits one process, so there two gateways
// share it inside this one.
import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { mintBatch, redeem } from '../../helpers/redeem.ts';
import { startReplicas, type Replicas } from '../../helpers/replicas.ts';

describe(`redeem codes on two gateways sharing a database (${usingPostgres() ? 'PostgreSQL, two processes' : 'PGlite, two gateways in one process'})`, function () {
  this.timeout(180_000);
  let gateway: TestGateway;
  let replicas: string[] = [];
  let started: Replicas | undefined;
  const limits = { REDEEM_ATTEMPTS_PER_KEY: '1000', REDEEM_ATTEMPTS_PER_ADDRESS: '1000' };

  before(async () => {
    gateway = await startTestGateway({ env: limits });
    started = await startReplicas(gateway, limits);
    replicas = started.urls;
  });
  after(async () => {
    await started?.close();
    await gateway?.close();
  });

  const wallet = async (customerId: string) => (await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
  const topUps = async (customerId: string) =>
    ((await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=500`)).body.data as any[]).filter((e) => e.kind === 'top_up');

  it('one customer redeeming a code through both at once: both answers the same 200, one credit', async () => {
    const { customerId, key } = await gateway.customerWithKey();
    const batch = await mintBatch(gateway, { amount: '1.50', count: 8 });
    for (const { id, code } of batch.codes) {
      const [a, b] = await Promise.all([redeem(replicas[0]!, key, code), redeem(replicas[1]!, key, code)]);
      expect([a.status, b.status]).to.deep.equal([200, 200]);
      expect(a.body).to.deep.equal(b.body);
      expect(a.body.code_id).to.equal(id);
    }
    expect((await wallet(customerId)).credits).to.equal('12.000000');
    expect(await topUps(customerId)).to.have.length(8);
  });

  it('two customers redeeming a code through both at once: exactly one is credited, the other refused', async () => {
    const first = await gateway.customerWithKey();
    const other = await gateway.customerWithKey();
    const batch = await mintBatch(gateway, { amount: '2.00', count: 8 });
    let firstWins = 0;
    for (const { code } of batch.codes) {
      const [a, b] = await Promise.all([redeem(replicas[0]!, first.key, code), redeem(replicas[1]!, other.key, code)]);
      expect([a.status, b.status].sort()).to.deep.equal([200, 400]);
      expect((a.status === 400 ? a : b).body.error.code).to.equal('redeem_code_refused');
      if (a.status === 200) firstWins++;
    }
    const credits = [(await wallet(first.customerId)).credits, (await wallet(other.customerId)).credits];
    expect(credits).to.deep.equal([`${2 * firstWins}.000000`, `${2 * (8 - firstWins)}.000000`]);
    expect((await topUps(first.customerId)).length + (await topUps(other.customerId)).length).to.equal(8);
    const codes = (await gateway.admin('GET', `/admin/v1/redeem-codes?batch_id=${batch.id}`)).body.data;
    expect(codes.map((c: any) => c.status)).to.deep.equal(Array(8).fill('redeemed'));
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
  });
});
