// `npm run admin -- <resource> <action> [args]`: the operator API from a terminal. It calls a
// running gateway over HTTP (the embedded database admits one process), with ADMIN_TOKEN or the
// token `npm start` generated into DATA_DIR.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readStoredAdminToken } from '../startup/admin-token.ts';
import { COMMANDS, UsageError } from './commands.ts';

function usage(): string {
  return [
    'usage: npm run admin -- <command>',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    'env: GATEWAY_URL (default http://127.0.0.1:8080), ADMIN_TOKEN (default: DATA_DIR/admin-token)',
  ].join('\n');
}

export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'external-reference': { type: 'string' },
      allow: { type: 'string' },
      amount: { type: 'string' },
      reference: { type: 'string' },
      limit: { type: 'string' },
      before: { type: 'string' },
      customer: { type: 'string' },
      model: { type: 'string' },
      endpoint: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      status: { type: 'string' },
      actor: { type: 'string' },
      reason: { type: 'string' },
      stale: { type: 'boolean' },
      after: { type: 'string' },
      q: { type: 'string' },
      expires: { type: 'string' },
      rpm: { type: 'string' },
      concurrency: { type: 'string' },
      spend: { type: 'string' },
      grace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [resource, action, ...rest] = positionals;
  const command = COMMANDS[`${resource} ${action}`];
  if (values.help || !command) {
    process.stderr.write(`${usage()}\n`);
    return values.help ? 0 : 2;
  }
  const token = env.ADMIN_TOKEN || readStoredAdminToken(path.resolve(env.DATA_DIR || './data'));
  if (!token) {
    process.stderr.write('No admin token: set ADMIN_TOKEN or start the gateway once with `npm start`.\n');
    return 2;
  }
  const base = (env.GATEWAY_URL || 'http://127.0.0.1:8080').replace(/\/$/, '');
  try {
    const body = command.body?.(values as Record<string, string | undefined>);
    const response = await fetch(base + command.path(rest, values as Record<string, string | undefined>), {
      method: command.method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const output = text ? JSON.stringify(JSON.parse(text), null, 2) : `(${response.status})`;
    (response.ok ? process.stdout : process.stderr).write(`${output}\n`);
    return response.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${usage()}\n`);
      return 2;
    }
    process.stderr.write(`Cannot reach the gateway at ${base}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void runAdminCli(process.argv.slice(2)).then((code) => process.exit(code));
}
