import type { Knex } from 'knex';
import { randomBase62 } from '../../src/shared/ids.ts';

export async function insertCustomer(db: Knex, name = 'Test customer'): Promise<string> {
  const id = `cus_${randomBase62(12)}`;
  await db('customers').insert({ id, name });
  return id;
}
