// `npm run admin -- redeem ...`: minting writes the codes as CSV (stdout or a new file only its
// owner reads) that a customer can redeem, and the other commands list and void over the admin API.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { IN_A_YEAR, redeem } from '../helpers/redeem.ts';

const run = promisify(execFile);

describe('npm run admin -- redeem (redeem codes from a terminal)', function () {
  this.timeout(90_000);
  let gateway: TestGateway;
  let dir: string;
  before(async () => {
    gateway = await startTestGateway();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redeem-cli-'));
  });
  after(async () => {
    await gateway?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const admin = async (args: string[]) => {
    try {
      const { stdout, stderr } = await run('npm', ['run', '-s', 'admin', '--', ...args], {
        cwd: ROOT_DIR,
        env: { ...process.env, GATEWAY_URL: gateway.url, ADMIN_TOKEN: gateway.adminToken },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('mints a batch as CSV (to stdout, or to a new private file), lists it, voids one code and the rest', async () => {
    const expires = IN_A_YEAR();
    const minted = await admin(['redeem', 'mint', '--amount', '3.5', '--count', '3', '--expires', expires, '--note', 'reseller, A']);
    expect(minted.code, minted.stderr).to.equal(0);
    const lines = minted.stdout.split('\r\n');
    expect(lines[0]).to.equal('code,code_id,amount,currency,expires_at,batch_id,note');
    const rows = lines.slice(1, -1).map((line) => line.split(','));
    expect(rows).to.have.length(3);
    const batchId = rows[0]![5]!;
    expect(minted.stderr).to.contain(`Minted 3 codes of 3.500000 USD (batch ${batchId})`);
    for (const row of rows) expect(row.slice(2, 7)).to.deep.equal(['3.500000', 'USD', new Date(expires).toISOString(), batchId, '"reseller']);
    expect(lines[1]).to.match(/,"reseller, A"$/);

    const { customerId, key } = await gateway.customerWithKey();
    expect((await redeem(gateway.url, key, rows[0]![0]!)).status).to.equal(200);
    const codes = JSON.parse((await admin(['redeem', 'codes', '--batch', batchId])).stdout);
    expect(codes.data.map((c: any) => [c.id, c.status, c.redeemed_by])).to.deep.equal([
      [rows[0]![1], 'redeemed', customerId],
      [rows[1]![1], 'active', null],
      [rows[2]![1], 'active', null],
    ]);
    const refused = await admin(['redeem', 'void', rows[0]![1]!]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^HTTP 409 redeem_code_redeemed: /);
    expect(JSON.parse((await admin(['redeem', 'void', rows[1]![1]!, '--reason', 'lost'])).stdout)).to.include({ status: 'voided', void_reason: 'lost' });
    expect(JSON.parse((await admin(['redeem', 'void-batch', batchId])).stdout)).to.deep.include({ voided: 1 });
    expect(JSON.parse((await admin(['redeem', 'batch', batchId])).stdout)).to.include({ active: 0, redeemed: 1, voided: 2 });
    expect(JSON.parse((await admin(['redeem', 'batches', '--limit', '1'])).stdout).data[0].id).to.equal(batchId);

    const file = path.join(dir, 'codes.csv');
    const written = await admin(['redeem', 'mint', '--amount', '1', '--count', '2', '--expires', expires, '--out', file]);
    expect(written.code, written.stderr).to.equal(0);
    expect(written.stdout).to.equal('');
    expect(written.stderr).to.contain(`Written to ${file}.`);
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    const code = fs.readFileSync(file, 'utf8').split('\r\n')[1]!.split(',')[0]!;
    expect((await redeem(gateway.url, key, code)).body.amount).to.equal('1.000000');
    const again = await admin(['redeem', 'mint', '--amount', '1', '--count', '2', '--expires', expires, '--out', file]);
    expect(again.code).to.equal(2); // refused before anything is minted: the file would be lost
    expect(again.stderr).to.contain('exists');
    expect(JSON.parse((await admin(['redeem', 'batches'])).stdout).data).to.have.length(2);
  });
});
