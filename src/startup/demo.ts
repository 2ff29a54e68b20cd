// The demo customer `npm start` creates beside the sandbox providers, so the first call works with
// no provider account. It is marked (customers.demo), its key reaches only the sandbox models, and
// it is suspended on every start without the sandbox providers: a database first started with
// SANDBOX=true and later run in production keeps no live, funded key that calls real providers.
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { isRefused } from '../customers/authenticate.ts';
import type { CustomerService } from '../customers/service.ts';
import type { Ledger } from '../ledger/index.ts';
import type { Logger } from '../logger.ts';

/** Demo credit on a fresh database: 10.00 in the catalogue currency. */
export const DEMO_CREDIT_MICROS = 10_000_000n;

export interface DemoCredentials {
  customer_id: string;
  key_id: string;
  api_key: string;
}

export interface DemoDeps {
  customers: CustomerService;
  ledger: Ledger;
  db: Knex;
  logger: Logger;
  dataDir: string;
  /** Sandbox providers on (SANDBOX=true). */
  sandbox: boolean;
  /** Create the demo customer on an empty database (npm start does; tests do not). */
  seed: boolean;
  /** The models only sandbox providers serve: all a demo key may call. */
  sandboxModels: string[];
}

/**
 * Brings the demo customers in line with this start: with the sandbox, active and limited to the
 * sandbox models (created on an empty database when `seed`); without it, suspended. Returns the
 * credentials to print, when there is a live demo key.
 */
export async function prepareDemo(deps: DemoDeps): Promise<DemoCredentials | undefined> {
  const demos: Array<{ id: string; status: string }> = await deps.db('customers').where({ demo: true }).select('id', 'status');
  const wanted = deps.sandbox ? 'active' : 'suspended';
  for (const demo of demos.filter((d) => d.status !== wanted)) {
    await deps.customers.updateCustomer(demo.id, { status: wanted });
    deps.logger.warn(
      { customer_id: demo.id, status: wanted },
      deps.sandbox ? 'demo customer active again beside the sandbox providers' : 'demo customer suspended: the sandbox providers are off',
    );
  }
  if (!deps.sandbox) return undefined;
  for (const demo of demos) await limitToSandbox(deps, demo.id);
  return deps.seed ? ensureDemoCustomer(deps) : undefined;
}

/** Every key of the demo customer reaches the sandbox models and nothing else. */
async function limitToSandbox(deps: DemoDeps, customerId: string): Promise<void> {
  const keys: Array<{ id: string; allowed_models: string[] | null }> = await deps
    .db('api_keys')
    .where({ customer_id: customerId })
    .whereNull('revoked_at')
    .select('id', 'allowed_models');
  for (const key of keys) {
    const allowed = [...(key.allowed_models ?? [])].sort().join();
    if (allowed !== [...deps.sandboxModels].sort().join()) await deps.customers.updateApiKey(key.id, { allowedModels: deps.sandboxModels });
  }
}

/**
 * On an empty database, creates the demo customer with some credit and a key. The key is kept in
 * DATA_DIR (mode 0600) only so later starts can print it again; it is never written when the
 * database already has customers.
 */
async function ensureDemoCustomer(deps: DemoDeps): Promise<DemoCredentials | undefined> {
  const file = path.join(deps.dataDir, 'demo-credentials.json');
  if ((await deps.customers.countCustomers()) > 0) {
    if (!fs.existsSync(file)) return undefined;
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoCredentials;
    const found = await deps.customers.authenticate(stored.api_key); // null: gone
    return found && !isRefused(found) ? { ...stored, key_id: stored.key_id ?? found.keyId } : undefined;
  }
  const customer = await deps.customers.createCustomer({ name: 'Demo customer', externalReference: 'demo' });
  if (typeof customer === 'string') return undefined;
  await deps.db('customers').where({ id: customer.id }).update({ demo: true });
  await deps.ledger.topUp({ ref: 'demo-credit', customerId: customer.id, amount: DEMO_CREDIT_MICROS, purpose: { reason: 'demo credit on first start' } });
  const created = await deps.customers.createApiKey(customer.id, { name: 'demo', allowedModels: deps.sandboxModels });
  if (typeof created === 'string') return undefined;
  const demo = { customer_id: customer.id, key_id: created.apiKey.id, api_key: created.secret };
  fs.mkdirSync(deps.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
