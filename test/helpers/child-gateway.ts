// A real gateway process (./gateway-process.ts), for what only a process can show: signals,
// kill -9, restarts, its own database connections.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';
import { openDatabase, pgliteDirFor } from '../../src/db/knex.ts';
import { gatewayEntry } from './gateway-process.ts';

export interface ChildGateway {
  url: string;
  port: number;
  child: ChildProcess;
  dataDir: string;
  output(): string;
  admin(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

export const CHILD_ADMIN_TOKEN = 'adm_child_gateway_token';

let template: Promise<string> | undefined;

/**
 * A data directory whose embedded database is created and migrated, made once per test process
 * and copied into each new child's directory: creating and migrating a database costs a child
 * about three seconds of CPU (PGlite's initdb files, then every migration in a WASM Postgres),
 * which a test of signals or crashes has no use for. A test of the first start itself asks for
 * `emptyDataDir`. The copy holds the database only: no admin token, no demo key, no lock.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ pgliteDir: pgliteDirFor(dir) });
    await db.destroy();
    return pgliteDirFor(dir);
  })();
  return template;
}

/**
 * A new DATA_DIR whose embedded database is already created and migrated (a copy of the
 * template), for a process that is not a child gateway of this helper (`npm start`, a gateway a
 * test spawns itself). The caller removes it.
 */
export async function migratedDataDir(prefix = 'gateway-child-'): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(await migratedTemplate(), pgliteDirFor(dataDir), { recursive: true });
  return dataDir;
}

export async function startChildGateway(
  options: { dataDir?: string; env?: Record<string, string | undefined>; emptyDataDir?: boolean } = {},
): Promise<ChildGateway> {
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    const embedded = !(options.env && 'DATABASE_URL' in options.env ? options.env.DATABASE_URL : process.env.DATABASE_URL);
    dataDir = embedded && !options.emptyDataDir ? await migratedDataDir() : fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-child-'));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0', // the child picks a free port and prints it: no race with other processes for one
    DATA_DIR: dataDir,
    ADMIN_TOKEN: CHILD_ADMIN_TOKEN,
    SANDBOX: 'true',
    LOG_LEVEL: 'warn',
    VIDEO_POLLER: 'false',
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(process.execPath, gatewayEntry(), { cwd: ROOT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const deadline = Date.now() + 60_000;
  let ready: RegExpExecArray | null = null;
  while (!(ready = /Gateway ready on (http:\/\/127\.0\.0\.1:(\d+))/.exec(output))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`child gateway did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = ready[1]!;
  const port = Number(ready[2]);
  return {
    url,
    port,
    child,
    dataDir,
    output: () => output,
    exited,
    async admin(method, pathname, body) {
      const response = await fetch(url + pathname, {
        method,
        headers: { authorization: `Bearer ${CHILD_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

/** A customer with a key and `credit` on a running child gateway. */
export async function fundedCustomer(gateway: ChildGateway, credit: string): Promise<{ customerId: string; key: string }> {
  const customer = await gateway.admin('POST', '/admin/v1/customers', { name: 'Fault test' });
  const key = await gateway.admin('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, {});
  await gateway.admin('POST', `/admin/v1/customers/${customer.body.id}/credits`, { amount: credit, reference: 'fund' });
  return { customerId: customer.body.id, key: key.body.key };
}

/** Opens a streamed message and resolves once its first content event arrived. */
export async function openStream(url: string, key: string, model: string, prompt: string): Promise<{ text: Promise<string> }> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: prompt }] }),
  });
  if (response.status !== 200) throw new Error(`stream refused: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes('content_block_delta')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return seen;
        seen += decoder.decode(value, { stream: true });
      }
    } catch {
      return seen; // the connection died with the process
    }
  })();
  return { text: rest };
}
