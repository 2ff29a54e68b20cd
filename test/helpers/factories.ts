import type { Knex } from 'knex';
import { randomBase62 } from '../../src/shared/ids.ts';
import type { TestGateway } from './gateway.ts';

export async function insertCustomer(db: Knex, name = 'Test customer'): Promise<string> {
  const id = `cus_${randomBase62(12)}`;
  await db('customers').insert({ id, name });
  return id;
}

export interface FundedCustomerOptions {
  /** Credit added to the wallet, a decimal string ('0' adds none). */
  balance?: string;
  /** The key's limits, as PATCH /admin/v1/api-keys/{id} takes them. */
  limits?: Record<string, unknown>;
  /** The key's allow-list of public model ids. */
  allowedModels?: string[];
  /** The credit's reference (unique across the ledger: a top-up is once per reference); default `fund-<customer id>`. */
  reference?: string;
}

/**
 * A customer with one key and credit on its wallet, made through the admin API as an operator
 * would: the customer, the key (with its allow-list and limits) and one credit.
 */
export async function fundedCustomer(
  gateway: Pick<TestGateway, 'admin' | 'customerWithKey'>,
  { balance = '10.00', limits, allowedModels, reference }: FundedCustomerOptions = {},
): Promise<{ customerId: string; keyId: string; key: string }> {
  const made = await gateway.customerWithKey(allowedModels ? { allowedModels } : {});
  if (limits) {
    const patched = await gateway.admin('PATCH', `/admin/v1/api-keys/${made.keyId}`, { limits });
    if (patched.status !== 200) throw new Error(`limits refused: ${JSON.stringify(patched.body)}`);
  }
  if (Number(balance) !== 0) {
    const credited = await gateway.admin('POST', `/admin/v1/customers/${made.customerId}/credits`, {
      amount: balance,
      reference: reference ?? `fund-${made.customerId}`,
    });
    if (credited.status !== 201) throw new Error(`credit refused: ${JSON.stringify(credited.body)}`);
  }
  return made;
}
