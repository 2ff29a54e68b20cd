import { expect } from 'chai';
import { getTestDatabase, resetDatabase } from '../../helpers/db.ts';

describe('database', () => {
  it('is migrated and returns bigint columns as BigInt', async () => {
    const db = await getTestDatabase();
    await resetDatabase(db);
    const [row] = await db('price_versions')
      .insert({ model_id: 'm', version: 1, price: JSON.stringify({}), price_hash: 'h' })
      .returning('id');
    expect(typeof row.id).to.equal('bigint');
    const { rows } = await db.raw('select 9007199254740993::bigint as big');
    expect(rows[0].big).to.equal(9007199254740993n);
  });
});
