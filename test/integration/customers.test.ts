import { expect } from 'chai';
import { createCustomerService } from '../../src/customers/service.ts';
import { CustomerError } from '../../src/customers/errors.ts';
import { getTestDatabase, resetDatabase } from '../helpers/db.ts';

describe('customer service', () => {
  const models = new Set(['sandbox/claude-sonnet', 'sandbox/claude-haiku']);
  const service = async () => {
    const db = await getTestDatabase();
    await resetDatabase(db);
    return { db, customers: createCustomerService({ db, apiKeyPrefix: 'sk-gw-', modelExists: (id) => models.has(id) }) };
  };

  it('stores only the hash of a key and authenticates it until revoked', async () => {
    const { db, customers } = await service();
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    const created = await customers.createApiKey(customer.id, { name: 'ci' });
    if (typeof created === 'string') throw new Error(created);

    const stored = await db('api_keys').where({ id: created.apiKey.id }).first();
    expect(JSON.stringify(stored)).to.not.include(created.secret);
    expect(JSON.stringify(stored)).to.not.include(created.secret.slice(10, 40));

    expect(await customers.authenticate(created.secret)).to.deep.equal({ customerId: customer.id, keyId: created.apiKey.id, allowedModels: null });
    const revoked = await customers.revokeApiKey(created.apiKey.id);
    if (typeof revoked === 'string') throw new Error(revoked);
    expect(revoked.revokedAt).to.be.instanceOf(Date);
    expect(await customers.authenticate(created.secret)).to.equal(null);

    const again = await customers.revokeApiKey(created.apiKey.id);
    if (typeof again === 'string') throw new Error(again);
    expect(again.revokedAt?.getTime()).to.equal(revoked.revokedAt?.getTime());
  });

  it('keeps allow-lists and refuses models the catalogue does not have', async () => {
    const { customers } = await service();
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    expect(await customers.createApiKey(customer.id, { allowedModels: ['nope/model'] })).to.equal(CustomerError.UnknownModel);
    const created = await customers.createApiKey(customer.id, { allowedModels: ['sandbox/claude-haiku', 'sandbox/claude-haiku'] });
    if (typeof created === 'string') throw new Error(created);
    expect(created.apiKey.allowedModels).to.deep.equal(['sandbox/claude-haiku']);
    expect((await customers.authenticate(created.secret))?.allowedModels).to.deep.equal(['sandbox/claude-haiku']);
  });

  it('answers typed errors for unknown customers, keys and duplicate references', async () => {
    const { customers } = await service();
    expect(await customers.getCustomer('cus_missing')).to.equal(CustomerError.CustomerNotFound);
    expect(await customers.createApiKey('cus_missing', {})).to.equal(CustomerError.CustomerNotFound);
    expect(await customers.listApiKeys('cus_missing')).to.equal(CustomerError.CustomerNotFound);
    expect(await customers.revokeApiKey('key_missing')).to.equal(CustomerError.ApiKeyNotFound);
    await customers.createCustomer({ name: 'A', externalReference: 'crm-1' });
    expect(await customers.createCustomer({ name: 'B', externalReference: 'crm-1' })).to.equal(CustomerError.ExternalReferenceTaken);
  });

  it('never authenticates malformed, unknown or prefix-only keys', async () => {
    const { customers } = await service();
    for (const candidate of ['', 'sk-gw-', 'Bearer x', `sk-gw-${'a'.repeat(40)}`, `sk-gw-${'a'.repeat(41)}`]) {
      expect(await customers.authenticate(candidate)).to.equal(null);
    }
  });
});
