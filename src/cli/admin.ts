// `npm run admin -- <resource> <action> [args]`: the operator API from a terminal. It calls a
// running gateway over HTTP (the embedded database admits one process), with ADMIN_TOKEN or the
// token `npm start` generated into DATA_DIR.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readStoredAdminToken } from '../startup/admin-token.ts';

interface Command {
  usage: string;
  method: 'GET' | 'POST' | 'DELETE';
  path(positionals: string[], options?: Record<string, string | undefined>): string;
  body?(options: Record<string, string | undefined>): unknown;
}

const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((s) => s.trim()).filter(Boolean));

const COMMANDS: Record<string, Command> = {
  'customers create': {
    usage: 'customers create --name NAME [--external-reference REF]',
    method: 'POST',
    path: () => '/admin/v1/customers',
    body: (o) => ({ name: o.name, ...(o['external-reference'] ? { external_reference: o['external-reference'] } : {}) }),
  },
  'customers get': { usage: 'customers get CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}` },
  'keys create': {
    usage: 'keys create CUSTOMER_ID [--name NAME] [--allow MODEL,MODEL]',
    method: 'POST',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/api-keys`,
    body: (o) => ({ ...(o.name ? { name: o.name } : {}), ...(o.allow ? { allowed_models: list(o.allow) } : {}) }),
  },
  'keys list': { usage: 'keys list CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/api-keys` },
  'keys revoke': { usage: 'keys revoke KEY_ID', method: 'DELETE', path: ([id]) => `/admin/v1/api-keys/${enc(id)}` },
  'catalogue reload': { usage: 'catalogue reload', method: 'POST', path: () => '/admin/v1/catalogue/reload' },
  'credits add': {
    usage: 'credits add CUSTOMER_ID --amount 10.00 --reference REF',
    method: 'POST',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/credits`,
    body: (o) => ({ amount: o.amount, reference: o.reference }),
  },
  'wallet get': { usage: 'wallet get CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/wallet` },
  'ledger list': {
    usage: 'ledger list CUSTOMER_ID [--limit N] [--before ID]',
    method: 'GET',
    path: ([id], o = {}) => `/admin/v1/customers/${enc(id)}/ledger${query({ limit: o.limit, before: o.before })}`,
  },
  'ledger reconcile': { usage: 'ledger reconcile', method: 'GET', path: () => '/admin/v1/ledger/reconciliation' },
  'holds list': {
    usage: 'holds list [--status pending] [--stale] [--customer ID] [--limit N]',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/reservations${query({ status: o.status, stale: o.stale === undefined ? undefined : 'true', customer_id: o.customer, limit: o.limit })}`,
  },
  'holds settle': {
    usage: 'holds settle REF [--amount 0.50] --actor WHO --reason WHY   (default amount: what was delivered)',
    method: 'POST',
    path: ([ref]) => `/admin/v1/reservations/${enc(ref)}/resolve`,
    body: (o) => ({ action: 'settle', ...(o.amount ? { amount: o.amount } : {}), actor: o.actor, reason: o.reason }),
  },
  'holds release': {
    usage: 'holds release REF --actor WHO --reason WHY',
    method: 'POST',
    path: ([ref]) => `/admin/v1/reservations/${enc(ref)}/resolve`,
    body: (o) => ({ action: 'release', actor: o.actor, reason: o.reason }),
  },
  'videos list': {
    usage: 'videos list [--status review] [--customer ID] [--limit N]',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/video-tasks${query({ status: o.status, customer_id: o.customer, limit: o.limit })}`,
  },
  'videos get': { usage: 'videos get TASK_ID', method: 'GET', path: ([id]) => `/admin/v1/video-tasks/${enc(id)}` },
  'videos settle': {
    usage: 'videos settle TASK_ID --amount 0.50 --actor WHO --reason WHY',
    method: 'POST',
    path: ([id]) => `/admin/v1/video-tasks/${enc(id)}/resolve`,
    body: (o) => ({ action: 'settle', amount: o.amount, actor: o.actor, reason: o.reason }),
  },
  'videos release': {
    usage: 'videos release TASK_ID --actor WHO --reason WHY',
    method: 'POST',
    path: ([id]) => `/admin/v1/video-tasks/${enc(id)}/resolve`,
    body: (o) => ({ action: 'release', actor: o.actor, reason: o.reason }),
  },
  'logs list': {
    usage: 'logs list [--customer ID] [--model M] [--endpoint OP] [--from ISO] [--to ISO] [--limit N] [--before ID]',
    method: 'GET',
    path: (_, o = {}) =>
      `/admin/v1/request-logs${query({ customer_id: o.customer, model: o.model, endpoint: o.endpoint, from: o.from, to: o.to, limit: o.limit, before: o.before })}`,
  },
};

function query(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}

function enc(value: string | undefined): string {
  if (!value) throw new UsageError('missing an id argument');
  return encodeURIComponent(value);
}

class UsageError extends Error {}

function usage(): string {
  return ['usage: npm run admin -- <command>', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`), '',
    'env: GATEWAY_URL (default http://127.0.0.1:8080), ADMIN_TOKEN (default: DATA_DIR/admin-token)'].join('\n');
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
  runAdminCli(process.argv.slice(2)).then((code) => process.exit(code));
}
