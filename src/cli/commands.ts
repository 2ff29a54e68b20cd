// The operator CLI's commands: each maps its arguments to one admin API call.
import { defined, enc, integer, query, UsageError, type Command } from './command-parts.ts';
import { REDEEM_COMMANDS } from './redeem-commands.ts';

export { enc, query, UsageError, type Command } from './command-parts.ts';

type Options = Record<string, string | undefined>;

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** `none` (or `never`, `all`) clears a setting; otherwise the value as given. */
const orNull = <T>(value: string | undefined, parse: (v: string) => T): T | null | undefined =>
  value === undefined ? undefined : ['none', 'never', 'all'].includes(value) ? null : parse(value);

/** `25.00/month` (day, month or total). */
function spend(value: string): { amount: string; period: string } {
  const [amount, period] = value.split('/');
  if (!amount || !period) throw new UsageError(`--spend takes AMOUNT/PERIOD, e.g. 25.00/month: ${value}`);
  return { amount, period };
}

/** The key fields `keys create` and `keys update` share, only those given. */
function keyFields(o: Options): Record<string, unknown> {
  const limits = defined({ requests_per_minute: orNull(o.rpm, integer), max_concurrent: orNull(o.concurrency, integer), spend_limit: orNull(o.spend, spend) });
  return defined({
    name: o.name,
    allowed_models: orNull(o.allow, (v) => list(v)),
    expires_at: orNull(o.expires, (v) => v),
    ...(Object.keys(limits).length ? { limits } : {}),
  });
}

export const COMMANDS: Record<string, Command> = {
  'customers create': {
    usage: 'customers create --name NAME [--external-reference REF]',
    method: 'POST',
    path: () => '/admin/v1/customers',
    body: (o) => ({ name: o.name, ...(o['external-reference'] ? { external_reference: o['external-reference'] } : {}) }),
  },
  'customers get': { usage: 'customers get CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}` },
  'customers list': {
    usage: 'customers list [--q NAME] [--limit N] [--after CUSTOMER_ID]',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/customers${query({ q: o.q, limit: o.limit, after: o.after })}`,
  },
  'customers update': {
    usage: 'customers update CUSTOMER_ID [--name NAME] [--status active|suspended]',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/customers/${enc(id)}`,
    body: (o) => defined({ name: o.name, status: o.status }),
  },
  'customers suspend': {
    usage: 'customers suspend CUSTOMER_ID',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/customers/${enc(id)}`,
    body: () => ({ status: 'suspended' }),
  },
  'customers activate': {
    usage: 'customers activate CUSTOMER_ID',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/customers/${enc(id)}`,
    body: () => ({ status: 'active' }),
  },
  'keys create': {
    usage: 'keys create CUSTOMER_ID [--name NAME] [--allow MODEL,MODEL] [--expires ISO] [--rpm N] [--concurrency N] [--spend 25.00/month]',
    method: 'POST',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/api-keys`,
    body: keyFields,
  },
  'keys list': { usage: 'keys list CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/api-keys` },
  'keys get': { usage: 'keys get KEY_ID', method: 'GET', path: ([id]) => `/admin/v1/api-keys/${enc(id)}` },
  'keys update': {
    usage:
      'keys update KEY_ID [--name NAME] [--allow M,M|all] [--expires ISO|never] [--rpm N|none] [--concurrency N|none] [--spend AMOUNT/day|month|total|none]',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/api-keys/${enc(id)}`,
    body: keyFields,
  },
  'keys rotate': {
    usage: 'keys rotate KEY_ID [--grace SECONDS]   (prints the new secret once; the old one works SECONDS more)',
    method: 'POST',
    path: ([id]) => `/admin/v1/api-keys/${enc(id)}/rotate`,
    body: (o) => defined({ grace_seconds: o.grace === undefined ? undefined : integer(o.grace) }),
  },
  'keys revoke': { usage: 'keys revoke KEY_ID', method: 'DELETE', path: ([id]) => `/admin/v1/api-keys/${enc(id)}` },
  'catalogue reload': { usage: 'catalogue reload', method: 'POST', path: () => '/admin/v1/catalogue/reload' },
  'credits add': {
    usage: 'credits add CUSTOMER_ID --amount 10.00 --reference REF',
    method: 'POST',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/credits`,
    body: (o) => ({ amount: o.amount, reference: o.reference }),
  },
  'credits adjust': {
    usage: 'credits adjust CUSTOMER_ID --amount -5.00 --reason WHY --reference REF [--actor WHO] [--record-debt]   (negative debits, positive credits)',
    method: 'POST',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/adjustments`,
    body: (o) =>
      defined({ amount: o.amount, reason: o.reason, reference: o.reference, actor: o.actor, record_debt: o['record-debt'] === undefined ? undefined : true }),
  },
  'wallet get': { usage: 'wallet get CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/wallet` },
  'ledger list': {
    usage: 'ledger list CUSTOMER_ID [--limit N] [--before ID]',
    method: 'GET',
    path: ([id], o = {}) => `/admin/v1/customers/${enc(id)}/ledger${query({ limit: o.limit, before: o.before })}`,
  },
  'ledger reconcile': {
    usage:
      'ledger reconcile [--since ISO] [--until ISO]   (wallets against the journal; charges in the window, default the last 24 h, against their priced usage)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/ledger/reconciliation${query({ since: o.since, until: o.until })}`,
  },
  'holds list': {
    usage: 'holds list [--status pending] [--stale] [--customer ID] [--limit N]',
    method: 'GET',
    path: (_, o = {}) =>
      `/admin/v1/reservations${query({ status: o.status, stale: o.stale === undefined ? undefined : 'true', customer_id: o.customer, limit: o.limit })}`,
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
  'receipts get': {
    usage:
      'receipts get REQUEST_ID|TASK_ID   (usage as reported, price version, hold, charge: from the hold, from the balance, debt, waived; free units, estimated or not)',
    method: 'GET',
    path: ([id]) => `/admin/v1/receipts/${enc(id)}`,
  },
  'usage export': {
    usage: 'usage export [--customer ID] [--from DATE|ISO] [--to DATE|ISO] [--format csv|ndjson]   (every customer without --customer; to stdout)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/usage/export${query({ customer_id: o.customer, from: o.from, to: o.to, format: o.format })}`,
  },
  'alerts get': { usage: 'alerts get CUSTOMER_ID', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/alerts` },
  'alerts set': {
    usage: 'alerts set CUSTOMER_ID [--threshold 5.00|none] [--url https://...|none] [--video-events true|false] [--rotate-secret]',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/alerts`,
    body: (o) =>
      defined({
        low_balance_threshold: orNull(o.threshold, (v) => v),
        webhook_url: orNull(o.url, (v) => v),
        video_events: o['video-events'] === undefined ? undefined : o['video-events'] === 'true',
        rotate_secret: o['rotate-secret'] === undefined ? undefined : true,
      }),
  },
  ...REDEEM_COMMANDS,
  'webhooks list': {
    usage: 'webhooks list [--customer ID] [--status pending|delivered|failed] [--limit N] [--before MSG_ID]   (every attempt of each)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/webhook-deliveries${query({ customer_id: o.customer, status: o.status, limit: o.limit, before: o.before })}`,
  },
};
