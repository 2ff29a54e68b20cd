import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runAdminCli } from '../../src/cli/admin.ts';
import { ROOT_DIR } from '../../src/config.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const run = promisify(execFile);

describe('npm run admin (operator CLI over the admin API)', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway.close());

  const environment = (env: Record<string, string>) => ({ ...process.env, GATEWAY_URL: gateway.url, ADMIN_TOKEN: gateway.adminToken, ...env });
  /** `npm run admin -- ...` as an operator types it: the script, its process and its exit code. */
  const adminProcess = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await run('npm', ['run', '-s', 'admin', '--', ...args], { cwd: ROOT_DIR, env: environment(env) });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  /**
   * The same CLI run in this process (what `npm run admin` runs, without starting npm and node each
   * time): its exit code and what it wrote to stdout and stderr. The first and last tests go
   * through the process, for the script and the exit codes as a shell sees them.
   */
  const admin = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const decoder = new TextDecoder();
    const code = await runAdminCli(args, environment(env), {
      stdout: { write: (chunk: string | Uint8Array) => (stdout += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
    });
    return { code, stdout, stderr };
  };

  it('creates a customer and a key, lists and revokes it', async () => {
    const customer = JSON.parse((await adminProcess(['customers', 'create', '--name', 'CLI Co', '--external-reference', 'cli-1'])).stdout);
    expect(customer).to.include({ object: 'customer', name: 'CLI Co', external_reference: 'cli-1' });
    const key = JSON.parse((await adminProcess(['keys', 'create', customer.id, '--name', 'ops', '--allow', 'sandbox/claude-haiku'])).stdout);
    expect(key.key).to.match(/^sk-gw-/);
    expect(key.allowed_models).to.deep.equal(['sandbox/claude-haiku']);
    const listed = JSON.parse((await adminProcess(['keys', 'list', customer.id])).stdout);
    expect(listed.data.map((k: { id: string }) => k.id)).to.deep.equal([key.id]);
    const revoked = JSON.parse((await adminProcess(['keys', 'revoke', key.id])).stdout);
    expect(revoked.status).to.equal('revoked');
    const reload = JSON.parse((await adminProcess(['catalogue', 'reload'])).stdout);
    expect(reload.status).to.equal('unchanged');
  });

  it('credits a wallet, shows it, lists the journal, reconciles and reads request logs', async () => {
    const customer = JSON.parse((await admin(['customers', 'create', '--name', 'Wallet Co'])).stdout);
    const credited = JSON.parse((await admin(['credits', 'add', customer.id, '--amount', '2.50', '--reference', 'inv-9'])).stdout);
    expect(credited.wallet.available).to.equal('2.500000');
    const conflict = await admin(['credits', 'add', customer.id, '--amount', '3', '--reference', 'inv-9']);
    expect(conflict.code).to.equal(1);
    expect(conflict.stderr).to.match(/^HTTP 409 reference_conflict: .+\n$/);
    expect(JSON.parse((await admin(['wallet', 'get', customer.id])).stdout).credits).to.equal('2.500000');
    const journal = JSON.parse((await admin(['ledger', 'list', customer.id, '--limit', '1'])).stdout);
    expect(journal.data[0].reference).to.equal('top_up:inv-9');
    expect(JSON.parse((await admin(['ledger', 'reconcile'])).stdout).ok).to.equal(true);
    // The window of charges priced again, as the operator names it.
    const windowed = JSON.parse((await admin(['ledger', 'reconcile', '--since', '2026-01-01T00:00:00Z', '--until', '2026-01-02T00:00:00Z'])).stdout);
    expect(windowed.priced).to.deep.equal({
      since: '2026-01-01T00:00:00.000Z',
      until: '2026-01-02T00:00:00.000Z',
      checked: 0,
      legacy: 0,
      difference_count: 0,
      differences: [],
    });
    await fetch(`${gateway.url}/v1/models`);
    await gateway.requestLogs('endpoint=models_list');
    const logs = JSON.parse((await admin(['logs', 'list', '--endpoint', 'models_list', '--limit', '5'])).stdout);
    expect(logs.data[0].endpoint).to.equal('models_list');
  });

  it('lists, suspends and reactivates customers; sets limits and expiry on keys, rotates them', async () => {
    const customer = JSON.parse((await admin(['customers', 'create', '--name', 'Limits Co'])).stdout);
    const key = JSON.parse((await admin(['keys', 'create', customer.id, '--rpm', '30', '--spend', '5.00/day', '--expires', '2099-01-01T00:00:00Z'])).stdout);
    expect(key.limits).to.deep.equal({ requests_per_minute: 30, max_concurrent: null, spend_limit: { amount: '5.000000', period: 'day' } });
    expect(key.expires_at).to.equal('2099-01-01T00:00:00.000Z');
    const updated = JSON.parse(
      (await admin(['keys', 'update', key.id, '--concurrency', '2', '--rpm', 'none', '--expires', 'never', '--name', 'batch'])).stdout,
    );
    expect(updated).to.deep.include({
      name: 'batch',
      expires_at: null,
      limits: { requests_per_minute: null, max_concurrent: 2, spend_limit: { amount: '5.000000', period: 'day' } },
    });
    expect(JSON.parse((await admin(['keys', 'get', key.id])).stdout).name).to.equal('batch');
    const rotated = JSON.parse((await admin(['keys', 'rotate', key.id, '--grace', '60'])).stdout);
    expect(rotated.key)
      .to.match(/^sk-gw-/)
      .and.not.equal(key.key);
    expect(rotated.previous_key_valid_until).to.be.a('string');
    expect((await admin(['keys', 'update', key.id, '--spend', 'lots'])).code).to.equal(2);

    const listed = JSON.parse((await admin(['customers', 'list', '--q', 'limits co', '--limit', '5'])).stdout);
    expect(listed.data.map((c: { id: string }) => c.id)).to.deep.equal([customer.id]);
    expect(JSON.parse((await admin(['customers', 'suspend', customer.id])).stdout).status).to.equal('suspended');
    const refused = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${rotated.key}` } });
    expect(refused.status).to.equal(403);
    expect(JSON.parse((await admin(['customers', 'activate', customer.id])).stdout).status).to.equal('active');
    expect(JSON.parse((await admin(['customers', 'update', customer.id, '--name', 'Limits Ltd'])).stdout).name).to.equal('Limits Ltd');
  });

  it('corrects and refunds a balance with adjustments, and records debt only when told to', async () => {
    const customer = JSON.parse((await admin(['customers', 'create', '--name', 'Adjust Co'])).stdout);
    await admin(['credits', 'add', customer.id, '--amount', '10.00', '--reference', 'inv-a']);
    const debit = await admin(['credits', 'adjust', customer.id, '--amount', '-4.00', '--reason', 'duplicate top-up', '--reference', 'cn-1']);
    expect(debit.code, debit.stderr).to.equal(0);
    const debited = JSON.parse(debit.stdout);
    expect(debited.entry).to.deep.include({ kind: 'adjustment', amount: '-4.000000', purpose: { reason: 'duplicate top-up', actor: 'admin' } });
    expect(debited.wallet).to.include({ available: '6.000000', debt: '0.000000' });
    // Past the balance: refused in one line, nothing posted, unless debt is recorded explicitly.
    const refused = await admin(['credits', 'adjust', customer.id, '--amount', '-8.00', '--reason', 'chargeback', '--reference', 'cn-2']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^HTTP 402 insufficient_funds: The wallet has 6\.000000 available.*record_debt.*\n$/);
    const withDebt = JSON.parse(
      (await admin(['credits', 'adjust', customer.id, '--amount', '-8.00', '--reason', 'chargeback', '--reference', 'cn-2', '--record-debt'])).stdout,
    );
    expect(withDebt.entry).to.include({ amount: '-8.000000', debt: '2.000000' });
    expect(withDebt.wallet).to.include({ available: '0.000000', debt: '2.000000' });
    expect(JSON.parse((await admin(['ledger', 'reconcile'])).stdout).debt).to.deep.equal({ customers: 1, amount: '2.000000' });
    // A refund credits the wallet; the debt is repaid first.
    const refund = JSON.parse((await admin(['credits', 'adjust', customer.id, '--amount', '5.00', '--reason', 'goodwill', '--reference', 'cn-3'])).stdout);
    expect(refund.wallet).to.include({ available: '3.000000', debt: '0.000000' });
    expect(JSON.parse((await admin(['ledger', 'reconcile'])).stdout).ok).to.equal(true);
    // A negative amount for a top-up is one clear line, not a stack trace.
    const negativeTopUp = await admin(['credits', 'add', customer.id, '--amount', '-5.00', '--reference', 'inv-b']);
    expect(negativeTopUp.code).to.equal(1);
    expect(negativeTopUp.stderr).to.match(/^HTTP 400 [a-z_]+: .*amount.*\n$/);
    expect(negativeTopUp.stderr).to.not.match(/\n\s+at /);
  });

  it("shows a request's receipt and exports a customer's charges to stdout as CSV or NDJSON", async () => {
    const made = await gateway.customerWithKey();
    await admin(['credits', 'add', made.customerId, '--amount', '1.00', '--reference', 'inv-r']);
    const answer = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': made.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const requestId = answer.headers.get('request-id')!;
    await answer.text();
    await gateway.settled();
    await gateway.requestLog(requestId);
    const receipt = JSON.parse((await admin(['receipts', 'get', requestId])).stdout);
    expect(receipt).to.include({ object: 'receipt', id: requestId, provider: 'sandbox-anthropic' });
    expect(receipt.charge).to.deep.include({ from_hold: receipt.charge.amount, from_balance: '0.000000', debt: '0.000000', waived: '0.000000' });
    const csv = await admin(['usage', 'export', '--customer', made.customerId]);
    expect(csv.code, csv.stderr).to.equal(0);
    const rows = csv.stdout.trimEnd().split('\r\n');
    expect(rows[0]).to.match(/^posted_at,customer_id,key_id,type,id,entry,/);
    expect(rows[1]).to.include(requestId);
    expect(rows.at(-1)).to.match(new RegExp(`,total,1 lines,.*,${receipt.charge.amount.replace('.', '\\.')},0\\.000000,USD$`));
    const ndjson = await admin(['usage', 'export', '--customer', made.customerId, '--format', 'ndjson']);
    expect(ndjson.code, ndjson.stderr + ndjson.stdout).to.equal(0);
    expect(JSON.parse(ndjson.stdout.trimEnd().split('\n').at(-1)!)).to.include({ object: 'usage_export.totals', lines: 1, charged: receipt.charge.amount });
  });

  it("sets a customer's low-balance alert and lists webhook deliveries", async () => {
    const made = await gateway.customerWithKey();
    const set = JSON.parse((await admin(['alerts', 'set', made.customerId, '--threshold', '2.50', '--url', 'https://hooks.example.com/x'])).stdout);
    expect(set).to.include({ object: 'alert_settings', low_balance_threshold: '2.500000', webhook_url: 'https://hooks.example.com/x', armed: true });
    expect(set.webhook_secret).to.match(/^whsec_/);
    const rotated = JSON.parse((await admin(['alerts', 'set', made.customerId, '--threshold', 'none', '--rotate-secret'])).stdout);
    expect(rotated.low_balance_threshold).to.equal(null);
    expect(rotated.webhook_secret).to.not.equal(set.webhook_secret);
    expect(JSON.parse((await admin(['alerts', 'get', made.customerId])).stdout).webhook_url).to.equal('https://hooks.example.com/x');
    const refused = await admin(['alerts', 'set', made.customerId, '--url', 'http://10.0.0.1/x']);
    expect(refused.stderr).to.match(/^HTTP 400 webhook_url_refused: .+\n$/);
    const listed = JSON.parse((await admin(['webhooks', 'list', '--customer', made.customerId])).stdout);
    expect(listed).to.deep.equal({ object: 'list', data: [], has_more: false, next_before: null });
  });

  it('exits non-zero with one line per failure, and with usage on nonsense', async () => {
    const missing = await adminProcess(['customers', 'get', 'cus_nobody']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^HTTP 404 customer_not_found: .+\n$/);
    const wrongToken = await adminProcess(['customers', 'get', 'cus_nobody'], { ADMIN_TOKEN: 'nope' });
    expect(wrongToken.stderr).to.match(/^HTTP 401 [a-z_]+: .+\n$/);
    const nonsense = await adminProcess(['frobnicate']);
    expect(nonsense.code).to.equal(2);
    expect(nonsense.stderr).to.include('usage: npm run admin');
    const badOption = await adminProcess(['customers', 'list', '--frob']);
    expect(badOption.code).to.equal(2);
    expect(badOption.stderr.trim().split('\n')).to.have.length(1);
    // Without GATEWAY_URL the CLI finds the gateway of PORT and HOST.
    const viaPort = await adminProcess(['ledger', 'reconcile'], { GATEWAY_URL: '', PORT: new URL(gateway.url).port, HOST: '0.0.0.0' });
    expect(viaPort.code, viaPort.stderr).to.equal(0);
    const nobody = await adminProcess(['ledger', 'reconcile'], { GATEWAY_URL: 'http://127.0.0.1:2' });
    expect(nobody.code).to.equal(1);
    expect(nobody.stderr).to.match(/^Cannot reach the gateway at http:\/\/127\.0\.0\.1:2 \(ECONNREFUSED\): is it running\?/);
  });
});
