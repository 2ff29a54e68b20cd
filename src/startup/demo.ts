import fs from 'node:fs';
import path from 'node:path';
import type { CustomerService } from '../customers/service.ts';
import type { Ledger } from '../ledger/service.ts';

/** Demo credit on a fresh database: 10.00 in the catalogue currency. */
export const DEMO_CREDIT_MICROS = 10_000_000n;

export interface DemoCredentials {
  customer_id: string;
  api_key: string;
}

/**
 * On an empty database, creates a demo customer with some credit and a key so the first call works. The key is kept
 * in DATA_DIR (mode 0600) only so later starts can print it again; it is a sandbox convenience and
 * is never written when the database already has customers.
 */
export async function ensureDemoCustomer(customers: CustomerService, ledger: Ledger, dataDir: string): Promise<DemoCredentials | undefined> {
  const file = path.join(dataDir, 'demo-credentials.json');
  if ((await customers.countCustomers()) > 0) {
    if (!fs.existsSync(file)) return undefined;
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoCredentials;
    const found = await customers.authenticate(stored.api_key); // null: gone; a string: refused
    return found && typeof found === 'object' ? stored : undefined;
  }
  const customer = await customers.createCustomer({ name: 'Demo customer', externalReference: 'demo' });
  if (typeof customer === 'string') return undefined;
  await ledger.topUp({ ref: 'demo-credit', customerId: customer.id, amount: DEMO_CREDIT_MICROS, purpose: { reason: 'demo credit on first start' } });
  const created = await customers.createApiKey(customer.id, { name: 'demo' });
  if (typeof created === 'string') return undefined;
  const demo = { customer_id: customer.id, api_key: created.secret };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
