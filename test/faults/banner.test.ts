// The production banner's first step runs as printed: a gateway started with SANDBOX=false on a
// port of its own prints the operator CLI command to create a customer, and that line, pasted into
// a shell that knows nothing of the gateway's PORT, HOST or DATA_DIR, creates one. With
// ADMIN_TOKEN from the environment the shell needs it too (the banner never prints it); with a
// generated token the command says where it is kept. Without any token the CLI says what to set,
// never to run `npm start`.
import { exec } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { CHILD_ADMIN_TOKEN, startChildGateway, type ChildGateway } from '../helpers/child-gateway.ts';
import { getTestDatabase, testDatabaseUrlInUse, usingPostgres } from '../helpers/db.ts';

const shell = promisify(exec);

/** An operator's shell: none of the gateway's own settings, ADMIN_TOKEN only when given. */
function operatorEnv(adminToken?: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATA_DIR', 'GATEWAY_URL', 'ADMIN_TOKEN', 'DATABASE_URL', 'SANDBOX']) delete env[name];
  return adminToken ? { ...env, ADMIN_TOKEN: adminToken } : env;
}

async function runPrinted(line: string, env: NodeJS.ProcessEnv, cwd = ROOT_DIR) {
  try {
    const { stdout, stderr } = await shell(line, { cwd, env, shell: '/bin/bash' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The command line the banner prints under "Create a customer and a key". */
const printedCommand = (output: string): string => {
  const match = /Create a customer and a key[^\n]*\n {2}(.+)\n/.exec(output);
  if (!match) throw new Error(`no command in the banner:\n${output}`);
  return match[1]!;
};

describe('the production banner: its admin command works as printed', function () {
  this.timeout(120_000);
  let gateway: ChildGateway | undefined;
  afterEach(async () => {
    if (!gateway) return;
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    fs.rmSync(gateway.dataDir, { recursive: true, force: true });
    gateway = undefined;
  });

  const start = async (env: Record<string, string | undefined>) => {
    const databaseUrl = usingPostgres() ? (await getTestDatabase(), testDatabaseUrlInUse()) : undefined;
    return startChildGateway({ env: { SANDBOX: 'false', DATABASE_URL: databaseUrl, ...env } });
  };

  it('with ADMIN_TOKEN from the environment: the line, in a shell with that token, creates a customer at this gateway', async () => {
    gateway = await start({});
    const line = printedCommand(gateway.output());
    const created = await runPrinted(line, operatorEnv(CHILD_ADMIN_TOKEN));
    expect(created.code, `${line}\n${created.stderr}`).to.equal(0);
    expect(line)
      .to.contain(`GATEWAY_URL=${gateway.url}`)
      .and.to.match(/customers create --name "Acme"$/);
    expect(gateway.output()).to.not.contain(CHILD_ADMIN_TOKEN);
    const customer = JSON.parse(created.stdout);
    expect(customer).to.include({ object: 'customer', name: 'Acme' });
    expect((await gateway.admin('GET', `/admin/v1/customers/${customer.id}`)).status).to.equal(200);

    // The same line in a shell without the token: told what to set, not to run npm start. Its
    // DATA_DIR is an empty directory: the default, the checkout's ./data, holds the token of the
    // developer's own `npm start` (the README's first command) if they ran it.
    const noTokenDir = fs.mkdtempSync(path.join(os.tmpdir(), 'banner-no-token-'));
    const refused = await runPrinted(line, { ...operatorEnv(), DATA_DIR: noTokenDir });
    fs.rmSync(noTokenDir, { recursive: true, force: true });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('set ADMIN_TOKEN').and.not.contain('npm start');
  });

  it('with a generated token: the line says where it is kept, and works in a shell without ADMIN_TOKEN', async () => {
    gateway = await start({ ADMIN_TOKEN: undefined });
    const line = printedCommand(gateway.output());
    const created = await runPrinted(line, operatorEnv());
    expect(created.code, `${line}\n${created.stderr}`).to.equal(0);
    expect(line).to.contain(`DATA_DIR=${gateway.dataDir}`);
    expect(fs.existsSync(path.join(gateway.dataDir, 'admin-token'))).to.equal(true);
    expect(JSON.parse(created.stdout)).to.include({ object: 'customer', name: 'Acme' });
  });
});
