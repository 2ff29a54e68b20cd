// The operator CLI's pricing commands (src/cli/commands.ts lists them with the rest): price plans,
// a customer's plan and own overrides, the audit of both, what a plan or a customer pays beside
// route costs, and the margin report. Overrides are given as the API takes them, a JSON array:
// --overrides '[{"model":"anthropic/claude-*","multiplier":"0.9"}]'.
import { defined, enc, query, UsageError, type Command } from './command-parts.ts';

type Options = Record<string, string | undefined>;

/** `--overrides` as JSON (an array of {model, price | multiplier}); `none` empties the list. */
function overrides(value: string | undefined): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // said below
  }
  throw new UsageError(`--overrides takes a JSON array such as '[{"model":"anthropic/claude-*","multiplier":"0.9"}]': ${value}`);
}

/** `none` clears the multiplier (list prices); anything else is sent as given. */
const multiplier = (value: string | undefined) => (value === undefined ? undefined : value === 'none' ? null : value);

const planFields = (o: Options) =>
  defined({ name: o.name, description: o.description, multiplier: multiplier(o.multiplier), overrides: overrides(o.overrides), actor: o.actor });

export const PRICING_COMMANDS: Record<string, Command> = {
  'plans list': { usage: 'plans list', method: 'GET', path: () => '/admin/v1/plans' },
  'plans get': { usage: 'plans get PLAN_ID', method: 'GET', path: ([id]) => `/admin/v1/plans/${enc(id)}` },
  'plans create': {
    usage: 'plans create --name NAME [--description TEXT] [--multiplier 0.8] [--overrides \'[{"model":"M","multiplier":"0.9"}]\'] [--actor WHO]',
    method: 'POST',
    path: () => '/admin/v1/plans',
    body: planFields,
  },
  'plans update': {
    usage: 'plans update PLAN_ID [--name NAME] [--description TEXT] [--multiplier M|none] [--overrides JSON|none] [--actor WHO]   (a new plan version)',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/plans/${enc(id)}`,
    body: planFields,
  },
  'plans delete': {
    usage: 'plans delete PLAN_ID [--actor WHO]   (only a plan no customer is on)',
    method: 'DELETE',
    path: ([id], o = {}) => `/admin/v1/plans/${enc(id)}${query({ actor: o.actor })}`,
  },
  'pricing get': { usage: 'pricing get CUSTOMER_ID   (its plan and own overrides)', method: 'GET', path: ([id]) => `/admin/v1/customers/${enc(id)}/pricing` },
  'pricing set': {
    usage: 'pricing set CUSTOMER_ID [--plan PLAN_ID|none] [--overrides JSON|none] [--actor WHO]',
    method: 'PATCH',
    path: ([id]) => `/admin/v1/customers/${enc(id)}/pricing`,
    body: (o) => defined({ plan_id: o.plan === 'none' ? null : o.plan, overrides: overrides(o.overrides), actor: o.actor }),
  },
  'pricing audit': {
    usage: 'pricing audit [--subject PLAN_ID|CUSTOMER_ID] [--limit N] [--before ID]   (who changed what, when, old and new)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/pricing-audit${query({ subject_id: o.subject, limit: o.limit, before: o.before })}`,
  },
  'prices list': {
    usage: 'prices list [--plan PLAN_ID] [--customer CUSTOMER_ID]   (what it pays per model, beside each route cost)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/prices${query({ plan_id: o.plan, customer_id: o.customer })}`,
  },
  'usage margin': {
    usage: 'usage margin [--customer ID] [--from DATE|ISO] [--to DATE|ISO]   (revenue, upstream cost and margin by customer and model)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/usage/margin${query({ customer_id: o.customer, from: o.from, to: o.to })}`,
  },
};
