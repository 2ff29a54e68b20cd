// A real gateway process per case: what an operator sees when the configuration is wrong. Each
// failure is exit code 1 and one line on stderr naming the variable, with no stack trace and no
// secret.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { gatewayEntry } from '../helpers/gateway-process.ts';
import { freePort } from '../helpers/prism.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runGateway(env: Record<string, string>): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-startup-'));
  const child = spawn(process.execPath, gatewayEntry(), {
    cwd: ROOT_DIR,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', VIDEO_POLLER: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A gateway that starts after all is a failure of the test: stop it rather than hang.
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      fs.rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Exit 1, every stderr line one of ours, the expected ones among them, no stack frame anywhere. */
function expectOneLineFailure(run: Run, expected: RegExp[], secret?: string): void {
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(run.code, run.stderr).to.equal(1);
  expect(lines.length, run.stderr).to.equal(expected.length);
  expected.forEach((pattern, i) => expect(lines[i]).to.match(pattern));
  expect(`${run.stdout}\n${run.stderr}`).to.not.match(/^\s+at /m);
  if (secret) expect(`${run.stdout}\n${run.stderr}`).to.not.include(secret);
}

const line = (rest: string) => new RegExp(`^gateway: cannot start: ${rest}`);

describe('start-up failures: one clear line naming the variable, exit 1, no stack trace', function () {
  this.timeout(60_000);

  it('a bad value, and several at once', async () => {
    expectOneLineFailure(await runGateway({ PORT: 'http' }), [line('PORT must be a whole number from 0 to 65535, got "http"$')]);
    expectOneLineFailure(await runGateway({ SANDBOX: 'maybe', LOG_LEVEL: 'verbose' }), [
      line('SANDBOX must be true or false'),
      line('LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"$'),
    ]);
  });

  it('a port in use (PORT, METRICS_PORT)', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      expectOneLineFailure(await runGateway({ PORT: String(port) }), [line(`PORT: 127\\.0\\.0\\.1:${port} is already in use \\(EADDRINUSE\\)`)]);
      expectOneLineFailure(await runGateway({ METRICS_PORT: String(port) }), [
        line(`METRICS_PORT: 127\\.0\\.0\\.1:${port} is already in use \\(EADDRINUSE\\)`),
      ]);
    } finally {
      holder.close();
    }
  });

  it('DATABASE_URL: not a URL, nothing listening, and (on PostgreSQL) wrong credentials or database', async () => {
    expectOneLineFailure(await runGateway({ DATABASE_URL: 'gateway:hunter2@localhost/gw' }), [line('DATABASE_URL must be a PostgreSQL URL')], 'hunter2');
    const closed = await freePort();
    expectOneLineFailure(
      await runGateway({ DATABASE_URL: `postgres://gateway:hunter2@127.0.0.1:${closed}/gw` }),
      [line(`DATABASE_URL: nothing accepts connections at 127\\.0\\.0\\.1:${closed} \\(connection refused\\)`)],
      'hunter2',
    );
    if (!process.env.DATABASE_URL) return;
    const wrongPassword = new URL(process.env.DATABASE_URL);
    wrongPassword.password = 'not-the-password-42';
    expectOneLineFailure(
      await runGateway({ DATABASE_URL: wrongPassword.toString() }),
      [line('DATABASE_URL: PostgreSQL at .* refused the credentials of user')],
      'not-the-password-42',
    );
    const noDatabase = new URL(process.env.DATABASE_URL);
    noDatabase.pathname = '/no_such_database_here';
    expectOneLineFailure(await runGateway({ DATABASE_URL: noDatabase.toString() }), [
      line('DATABASE_URL: database "no_such_database_here" does not exist on '),
    ]);
  });

  it('CATALOGUE_PATH: missing, or not a valid catalogue', async () => {
    const missing = path.join(os.tmpdir(), 'no-such-catalogue.yaml');
    expectOneLineFailure(await runGateway({ CATALOGUE_PATH: missing }), [line(`CATALOGUE_PATH: ${missing.replace(/\./g, '\\.')} does not exist$`)]);
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-')), 'bad.yaml');
    fs.writeFileSync(
      bad,
      'service_name: x\ncurrency: USD\nproviders: [{id: p, protocol: carrier-pigeon, base_url: "http://x", credential_env: X}]\nmodels: []\n',
    );
    expectOneLineFailure(await runGateway({ CATALOGUE_PATH: bad }), [line('CATALOGUE_PATH: .*bad\\.yaml is not a valid catalogue \\(\\d+ problems?\\): ')]);
  });

  it('DATA_DIR that cannot be a writable directory', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'datadir-')), 'a-file');
    fs.writeFileSync(file, '');
    expectOneLineFailure(await runGateway({ DATA_DIR: file }), [line(`DATA_DIR: .*a-file is not a writable directory for this process`)]);
  });
});
