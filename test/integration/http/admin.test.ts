import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('admin API: customers and keys', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  beforeEach(async () => {
    await gateway.reset();
  });
  after(async () => gateway?.close());

  it('refuses a missing or wrong admin token with 401 in the error shape', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const response = await fetch(`${gateway.url}/admin/v1/customers/cus_x`, { headers });
      expect(response.status).to.equal(401);
      const body = (await response.json()) as any;
      expect(body.error.type).to.equal('authentication_error');
    }
    const customerKey = await gateway.customerWithKey();
    const asCustomer = await fetch(`${gateway.url}/admin/v1/customers/${customerKey.customerId}`, { headers: { authorization: `Bearer ${customerKey.key}` } });
    expect(asCustomer.status).to.equal(401);
  });

  it('creates a customer, a key shown once, lists keys redacted, revokes at once', async () => {
    const created = await gateway.admin('POST', '/admin/v1/customers', { name: 'Acme', external_reference: 'crm-42' });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ object: 'customer', name: 'Acme', external_reference: 'crm-42' });
    expect(created.body.id).to.match(/^cus_/);

    const fetched = await gateway.admin('GET', `/admin/v1/customers/${created.body.id}`);
    expect(fetched.body).to.deep.equal(created.body);

    const key = await gateway.admin('POST', `/admin/v1/customers/${created.body.id}/api-keys`, { name: 'ci', allowed_models: ['sandbox/claude-haiku'] });
    expect(key.status).to.equal(201);
    expect(key.body.key).to.match(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(key.body).to.include({ object: 'api_key', name: 'ci', status: 'active', revoked_at: null });
    expect(key.body.allowed_models).to.deep.equal(['sandbox/claude-haiku']);

    const listed = await gateway.admin('GET', `/admin/v1/customers/${created.body.id}/api-keys`);
    expect(listed.status).to.equal(200);
    expect(listed.body.data).to.have.length(1);
    expect(listed.body.data[0]).to.not.have.property('key');
    expect(JSON.stringify(listed.body)).to.not.include(key.body.key);
    expect(listed.body.data[0].redacted_key).to.equal(`${key.body.key.slice(0, 10)}…${key.body.key.slice(-4)}`);

    const ok = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key.body.key}` } });
    expect(ok.status).to.equal(200);
    const revoked = await gateway.admin('DELETE', `/admin/v1/api-keys/${key.body.id}`);
    expect(revoked.body.status).to.equal('revoked');
    const refused = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key.body.key}` } });
    expect(refused.status).to.equal(401);
    expect(gateway.rawLogs()).to.not.include(key.body.key);
  });

  it('answers bad admin input with 400/404/409 and changes nothing', async () => {
    expect((await gateway.admin('POST', '/admin/v1/customers', {})).status).to.equal(400);
    const empty = await gateway.admin('POST', '/admin/v1/customers', { name: '' });
    expect(empty.status).to.equal(400);
    expect(empty.body.error.param).to.equal('name');
    expect((await gateway.admin('POST', '/admin/v1/customers', { name: 42 })).status).to.equal(400);
    expect((await gateway.admin('GET', '/admin/v1/customers/cus_nobody')).status).to.equal(404);
    expect((await gateway.admin('POST', '/admin/v1/customers/cus_nobody/api-keys', {})).status).to.equal(404);
    expect((await gateway.admin('DELETE', '/admin/v1/api-keys/key_nobody')).status).to.equal(404);

    const first = await gateway.admin('POST', '/admin/v1/customers', { name: 'A', external_reference: 'dup' });
    const dup = await gateway.admin('POST', '/admin/v1/customers', { name: 'B', external_reference: 'dup' });
    expect(dup.status).to.equal(409);
    expect(dup.body.error.code).to.equal('external_reference_taken');

    const unknownModel = await gateway.admin('POST', `/admin/v1/customers/${first.body.id}/api-keys`, { allowed_models: ['nobody/nothing'] });
    expect(unknownModel.status).to.equal(400);
    expect(unknownModel.body.error.param).to.equal('allowed_models');
    const keys = await gateway.admin('GET', `/admin/v1/customers/${first.body.id}/api-keys`);
    expect(keys.body.data).to.have.length(0);
    expect(await gateway.db('customers').count('* as n').first()).to.deep.equal({ n: 1n });
  });
});
