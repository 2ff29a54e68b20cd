// `npm run admin -- <resource> <action> [args]`: the operator API from a terminal. It calls a
// running gateway over HTTP (the embedded database admits one process), with ADMIN_TOKEN or the
// token `npm start` generated into DATA_DIR.
import fs from 'node:fs';
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
    'env: GATEWAY_URL (default: the gateway of PORT and HOST, http://127.0.0.1:8080), ADMIN_TOKEN (default: DATA_DIR/admin-token)',
  ].join('\n');
}

/** `--amount -5.00`: a negative number is the option's value, not another option. */
const joinNegativeValues = (argv: string[]): string[] =>
  argv.flatMap((arg, i) =>
    /^-\d/.test(argv[i + 1] ?? '') && /^--[a-z-]+$/.test(arg)
      ? []
      : /^-\d/.test(arg) && /^--[a-z-]+$/.test(argv[i - 1] ?? '')
        ? [`${argv[i - 1]}=${arg}`]
        : [arg],
  );

/** Where the gateway of this environment listens (its PORT and HOST), unless GATEWAY_URL says. */
export function gatewayUrl(env: NodeJS.ProcessEnv): string {
  if (env.GATEWAY_URL) return env.GATEWAY_URL.replace(/\/$/, '');
  const host = !env.HOST || env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT || '8080'}`;
}

/** An API error as one line: status, code and the API's own message. */
function errorLine(status: number, text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error;
    if (error) return `HTTP ${status} ${String(error.code ?? error.type ?? 'error')}: ${String(error.message ?? '')}`;
  } catch {
    // not JSON: the text itself
  }
  return `HTTP ${status}: ${text.slice(0, 300).replace(/\s+/g, ' ') || '(no body)'}`;
}

/** Where the CLI writes: the process's own streams, or (tests running it in-process) a capture. */
export interface CliOutput {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string): unknown };
}

export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv = process.env, out: CliOutput = process): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(joinNegativeValues(argv));
  } catch (error) {
    out.stderr.write(`${(error as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  return run(parsed, env, out);
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
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
      since: { type: 'string' },
      until: { type: 'string' },
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
      'record-debt': { type: 'boolean' },
      format: { type: 'string' },
      threshold: { type: 'string' },
      url: { type: 'string' },
      'video-events': { type: 'string' },
      'rotate-secret': { type: 'boolean' },
      count: { type: 'string' },
      note: { type: 'string' },
      batch: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function run({ values, positionals }: ReturnType<typeof parseCommandLine>, env: NodeJS.ProcessEnv, out: CliOutput): Promise<number> {
  const [resource, action, ...rest] = positionals;
  const command = COMMANDS[`${resource} ${action}`];
  if (values.help || !command) {
    out.stderr.write(`${usage()}\n`);
    return values.help ? 0 : 2;
  }
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const token = env.ADMIN_TOKEN || readStoredAdminToken(dataDir);
  if (!token) {
    out.stderr.write(
      `No admin token: set ADMIN_TOKEN to the gateway's (a gateway started without one keeps the token it generated in DATA_DIR/admin-token; there is none in ${dataDir}).\n`,
    );
    return 2;
  }
  const base = gatewayUrl(env);
  if (command.render && values.out && fs.existsSync(values.out)) {
    process.stderr.write(`${values.out} exists: the answer is shown once, so name a new file.\n`);
    return 2;
  }
  try {
    const body = command.body?.(values as Record<string, string | undefined>);
    const response = await fetch(base + command.path(rest, values as Record<string, string | undefined>), {
      method: command.method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (response.ok && response.body && !(response.headers.get('content-type') ?? '').startsWith('application/json')) {
      // An export (CSV, NDJSON) goes to stdout as it arrives.
      for await (const chunk of response.body) out.stdout.write(chunk);
      return 0;
    }
    const text = await response.text();
    if (!response.ok) {
      out.stderr.write(`${errorLine(response.status, text)}\n`);
      return 1;
    }
    if (command.render && text) return writeRendered(out, command.render(JSON.parse(text)), values.out);
    out.stdout.write(`${text ? JSON.stringify(JSON.parse(text), null, 2) : `(${response.status})`}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      out.stderr.write(`${error.message}\n${usage()}\n`);
      return 2;
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    out.stderr.write(`Cannot reach the gateway at ${base}${cause ? ` (${cause})` : ''}: is it running? Set GATEWAY_URL if it listens elsewhere.\n`);
    return 1;
  }
}

/** A rendered answer (CSV with secrets in it): to a new file only this user may read, or to stdout. */
function writeRendered(out: CliOutput, { text, note }: { text: string; note: string }, file: string | undefined): number {
  if (file) fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  else out.stdout.write(text);
  out.stderr.write(`${note}${file ? ` Written to ${file}.` : ''}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void runAdminCli(process.argv.slice(2)).then((code) => process.exit(code));
}
