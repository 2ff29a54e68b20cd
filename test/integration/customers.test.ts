import { expect } from 'chai';
import { createCustomerService } from '../../src/customers/service.ts';
import { CustomerError } from '../../src/customers/errors.ts';
import { eventually } from '../helpers/eventually.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../helpers/db.ts';

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

    expect(await customers.authenticate(created.secret)).to.deep.equal({
      customerId: customer.id,
      keyId: created.apiKey.id,
      allowedModels: null,
      limited: false,
    });
    const revoked = await customers.revokeApiKey(created.apiKey.id);
    if (typeof revoked === 'string') throw new Error(revoked);
    expect(revoked.revokedAt).to.be.instanceOf(Date);
    expect(await customers.authenticate(created.secret)).to.equal(null);

    const again = await customers.revokeApiKey(created.apiKey.id);
    if (typeof again === 'string') throw new Error(again);
    expect(again.revokedAt?.getTime()).to.equal(revoked.revokedAt?.getTime());
  });

  it('remembers a live key briefly: one lookup per key and period, revocation here at once, elsewhere within the period', async () => {
    const db = await getTestDatabase();
    await resetDatabase(db);
    let clock = new Date('2026-11-22T12:00:00Z');
    const make = () => createCustomerService({ db, apiKeyPrefix: 'sk-gw-', modelExists: (id) => models.has(id), keyCacheMs: 5000, now: () => clock });
    const customers = make();
    const replica = make(); // another process sharing the database
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    const [one, two] = await Promise.all([customers.createApiKey(customer.id, {}), customers.createApiKey(customer.id, {})]);
    if (typeof one === 'string' || typeof two === 'string') throw new Error('key create failed');

    const lookups: string[] = [];
    const record = (query: { sql: string }) => void (query.sql.includes('api_keys') && lookups.push(query.sql));
    db.on('query', record);
    try {
      for (let i = 0; i < 5; i++) expect(await replica.authenticate(one.secret)).to.include({ keyId: one.apiKey.id });
      expect(lookups).to.have.length(1);
      const unknown = `sk-gw-${'x'.repeat(40)}`;
      expect(await replica.authenticate(unknown)).to.equal(null);
      expect(await replica.authenticate(unknown)).to.equal(null);
      expect(lookups, 'unknown keys are never cached').to.have.length(3);
    } finally {
      db.off('query', record);
    }

    // Revoked here: refused here at once.
    expect(await customers.authenticate(two.secret)).to.include({ keyId: two.apiKey.id });
    await customers.revokeApiKey(two.apiKey.id);
    expect(await customers.authenticate(two.secret)).to.equal(null);

    // Revoked elsewhere: the replica keeps it for at most the period, then asks again.
    await customers.revokeApiKey(one.apiKey.id);
    clock = new Date(clock.getTime() + 4999);
    expect(await replica.authenticate(one.secret)).to.include({ keyId: one.apiKey.id });
    clock = new Date(clock.getTime() + 1);
    expect(await replica.authenticate(one.secret)).to.equal(null);
    expect(await replica.authenticate(one.secret)).to.equal(null);
  });

  it('refreshes a busy key in the background past half the period: no use waits for the database, a change elsewhere still lands within the period', async () => {
    const db = await getTestDatabase();
    await resetDatabase(db);
    let clock = new Date('2026-11-22T12:00:00Z');
    const make = () => createCustomerService({ db, apiKeyPrefix: 'sk-gw-', modelExists: (id) => models.has(id), keyCacheMs: 5000, now: () => clock });
    const customers = make();
    const replica = make();
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    const key = await customers.createApiKey(customer.id, {});
    if (typeof key === 'string') throw new Error(key);

    const lookups: string[] = [];
    const record = (query: { sql: string }) => void (query.sql.includes('api_keys') && lookups.push(query.sql));
    db.on('query', record);
    try {
      expect(await replica.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
      expect(lookups).to.have.length(1);
      clock = new Date(clock.getTime() + 2000);
      expect(await replica.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
      expect(lookups, 'before half the period: from memory').to.have.length(1);
      clock = new Date(clock.getTime() + 1000); // 3 s: past half the period
      const answered = replica.authenticate(key.secret);
      expect(await answered).to.include({ keyId: key.apiKey.id });
      await eventually(() => expect(lookups, 'one lookup in the background').to.have.length(2));
      clock = new Date(clock.getTime() + 4000); // 7 s: past the first lookup's period, within the refreshed one
      expect(await replica.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
      expect(lookups, 'the refreshed entry answers').to.have.length(2);
      await eventually(() => expect(lookups, 'and is itself refreshed (used past its half)').to.have.length(3));

      // Revoked elsewhere at 7 s: the replica may answer from memory until its newest entry ends (12 s)...
      await customers.revokeApiKey(key.apiKey.id);
      clock = new Date(clock.getTime() + 1000);
      expect(await replica.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
      // ...but its next refresh reads the revocation, and the key is refused from then on.
      clock = new Date(clock.getTime() + 2000); // 10 s: past the half of the entry made at 7 s
      await replica.authenticate(key.secret);
      await eventually(async () => expect(await replica.authenticate(key.secret)).to.equal(null));
    } finally {
      db.off('query', record);
    }
  });

  it('keeps keys in recent use warm across a pause: one query re-reads them all, a revocation elsewhere lands, idle keys are let go', async () => {
    const db = await getTestDatabase();
    await resetDatabase(db);
    let clock = new Date('2026-11-23T12:00:00Z');
    const make = () =>
      createCustomerService({ db, apiKeyPrefix: 'sk-gw-', modelExists: (id) => models.has(id), keyCacheMs: 5000, keyWarmMs: 60_000, now: () => clock });
    const customers = make();
    const replica = make();
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    const [a, b, c] = await Promise.all([
      customers.createApiKey(customer.id, {}),
      customers.createApiKey(customer.id, {}),
      customers.createApiKey(customer.id, {}),
    ]);
    if (typeof a === 'string' || typeof b === 'string' || typeof c === 'string') throw new Error('key');
    const rotated = await customers.rotateApiKey(c.apiKey.id, 3600);
    if (typeof rotated === 'string') throw new Error(rotated);

    const lookups: string[] = [];
    const record = (query: { sql: string }) => void (query.sql.includes('api_keys') && lookups.push(query.sql));
    db.on('query', record);
    const tick = async (ms: number) => {
      clock = new Date(clock.getTime() + ms);
      await replica.keepKeysWarm();
    };
    try {
      for (const secret of [a.secret, b.secret, c.secret]) expect(await replica.authenticate(secret)).to.have.property('keyId'); // c: rotated out, in its grace
      expect(lookups).to.have.length(3);
      await tick(2500);
      expect(lookups, 'the three keys re-read in one query').to.have.length(4);
      db.off('query', record); // the revocation's own statements are not lookups
      await customers.revokeApiKey(b.apiKey.id);
      db.on('query', record);
      // A pause of 20 s, the upkeep ticking every 2.5 s: no request waits for a lookup afterwards.
      for (let i = 0; i < 8; i++) await tick(2500);
      expect(lookups, 'one query per tick').to.have.length(12);
      const before = lookups.length;
      expect(await replica.authenticate(a.secret)).to.include({ keyId: a.apiKey.id });
      expect(await replica.authenticate(c.secret)).to.include({ keyId: c.apiKey.id });
      expect(lookups, 'answered from memory after the pause').to.have.length(before);
      expect(await replica.authenticate(b.secret), 'revoked elsewhere: refused').to.equal(null);
      // Keys not used for a minute are let go: the upkeep stops reading them.
      for (let i = 0; i < 30; i++) await tick(2500);
      const settled = lookups.length;
      await tick(2500);
      await tick(2500);
      expect(lookups.length, 'nothing kept warm any more').to.equal(settled);
      expect(await replica.authenticate(a.secret)).to.include({ keyId: a.apiKey.id });
      expect(lookups, 'looked up again on use').to.have.length(settled + 1);
    } finally {
      db.off('query', record);
    }
  });

  // A second connection holds a table lock meanwhile: PostgreSQL only (the embedded database serves one connection).
  if (usingPostgres())
    it('keeps a key warm after a background refresh that a change here made it discard', async () => {
      const db = await getTestDatabase();
      await resetDatabase(db);
      let clock = new Date('2026-11-23T12:00:00Z');
      const customers = createCustomerService({
        db,
        apiKeyPrefix: 'sk-gw-',
        modelExists: (id) => models.has(id),
        keyCacheMs: 5000,
        keyWarmMs: 60_000,
        now: () => clock,
      });
      const [acme, other] = await Promise.all([customers.createCustomer({ name: 'Acme' }), customers.createCustomer({ name: 'Other' })]);
      if (typeof acme === 'string' || typeof other === 'string') throw new Error('customer');
      const key = await customers.createApiKey(acme.id, {});
      if (typeof key === 'string') throw new Error(key);
      expect(await customers.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });

      // The background refresh of a use past half the period is held at the table's lock while a
      // change here (another customer suspended) happens: the refresh must discard what it read.
      const lock = await db.transaction();
      await lock.raw('lock table api_keys in access exclusive mode');
      clock = new Date(clock.getTime() + 3000);
      expect(await customers.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
      await customers.updateCustomer(other.id, { status: 'suspended' });
      await lock.commit();
      await new Promise((resolve) => setTimeout(resolve, 200));

      const lookups: string[] = [];
      const record = (query: { sql: string }) => void (query.sql.includes('api_keys') && lookups.push(query.sql));
      db.on('query', record);
      try {
        await customers.keepKeysWarm();
        expect(lookups, 'the key is still kept warm').to.have.length(1);
        clock = new Date(clock.getTime() + 4000); // past the first entry's end: the upkeep's entry answers
        expect(await customers.authenticate(key.secret)).to.include({ keyId: key.apiKey.id });
        expect(lookups).to.have.length(1);
      } finally {
        db.off('query', record);
      }
    });

  it('keeps allow-lists and refuses models the catalogue does not have', async () => {
    const { customers } = await service();
    const customer = await customers.createCustomer({ name: 'Acme' });
    if (typeof customer === 'string') throw new Error(customer);
    expect(await customers.createApiKey(customer.id, { allowedModels: ['nope/model'] })).to.equal(CustomerError.UnknownModel);
    const created = await customers.createApiKey(customer.id, { allowedModels: ['sandbox/claude-haiku', 'sandbox/claude-haiku'] });
    if (typeof created === 'string') throw new Error(created);
    expect(created.apiKey.allowedModels).to.deep.equal(['sandbox/claude-haiku']);
    expect(await customers.authenticate(created.secret))
      .to.include({ keyId: created.apiKey.id })
      .and.have.deep.property('allowedModels', ['sandbox/claude-haiku']);
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
