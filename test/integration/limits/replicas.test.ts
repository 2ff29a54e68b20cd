import { expect } from 'chai';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { limitedKey, message, tally } from '../../helpers/limits.ts';
import { startReplicas, type Replicas } from '../../helpers/replicas.ts';

// One key's limits hold across gateways sharing a database: on PostgreSQL two gateway processes;
// the embedded PGlite admits one process, so there two gateways share it inside this one.
describe(`key limits shared by two gateways on one database (${usingPostgres() ? 'PostgreSQL, two processes' : 'PGlite, two gateways in one process'})`, function () {
  this.timeout(180_000);
  let gateway: TestGateway;
  let replicas: string[] = [];
  let started: Replicas | undefined;

  before(async () => {
    gateway = await startTestGateway();
    started = await startReplicas(gateway, { KEY_CACHE_MS: '300' });
    replicas = started.urls;
  });
  after(async () => {
    await started?.close();
    await gateway?.close();
  });

  /** `n` parallel messages, alternating between the two gateways. */
  const spread = (n: number, key: string, content = 'hi', maxTokens = 100) =>
    Promise.all(Array.from({ length: n }, (_, i) => message(replicas[i % 2]!, key, content, { maxTokens })));

  it('shares one requests-per-minute limit: exactly 6 of 20 requests spread over both pass', async () => {
    const { key } = await limitedKey(gateway, { requests_per_minute: 6 });
    const { counts, bodies } = await tally(await spread(20, key));
    expect(counts).to.deep.equal({ 200: 6, 429: 14 });
    expect(
      bodies
        .filter((b) => b.status === 200)
        .map((b) => b.headers.get('anthropic-ratelimit-requests-remaining'))
        .sort(),
    ).to.deep.equal(['0', '1', '2', '3', '4', '5']);
  });

  it('shares one concurrency limit: 3 of 12 slow requests spread over both are in flight', async () => {
    const { key } = await limitedKey(gateway, { max_concurrent: 3 });
    const { counts } = await tally(await spread(12, key, 'slow [[sim first_byte_ms=3000]]'));
    expect(counts).to.deep.equal({ 200: 3, 429: 9 });
  });

  it('shares one spend limit: 50 parallel requests over both never pass it', async () => {
    const { key } = await limitedKey(gateway, { spend_limit: { amount: '0.03', period: 'day' } });
    const { counts } = await tally(await spread(50, key, 'spend [[sim report_output=1000]]', 1000));
    expect(counts[200]).to.be.within(1, 6); // about 0.005 each
    expect(counts[200]! + counts[402]!).to.equal(50);
    await gateway.settled();
    const view = (await (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
    expect(Number(view.spend.day)).to.be.at.most(0.03);
    expect((await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body.ok).to.equal(true);
  });

  it('stops a suspended customer and a revoked key on the other gateway within KEY_CACHE_MS', async () => {
    const { key, keyId, customerId } = await limitedKey(gateway, {});
    const other = replicas[1]!;
    expect((await message(other, key, 'hi')).status).to.equal(200); // remembered there now
    await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'suspended' });
    await new Promise((r) => setTimeout(r, 400));
    const refused = await message(other, key, 'hi');
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as any).error.type).to.equal('permission_error');
    await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'active' });
    await new Promise((r) => setTimeout(r, 400));
    expect((await message(other, key, 'hi')).status).to.equal(200);
    await gateway.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
    await new Promise((r) => setTimeout(r, 400));
    expect((await message(other, key, 'hi')).status).to.equal(401);
  });
});
