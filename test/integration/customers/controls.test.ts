import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { chat, message } from '../../helpers/limits.ts';

// Operators' controls over customers and keys, as operators and clients see them over HTTP.
describe('operator controls: customers list and suspension, key changes, expiry and rotation', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  /** How far the gateway's key clock runs ahead of the real one: an expiry passes without waiting for it. */
  let clockAhead = 0;
  before(async () => {
    gateway = await startTestGateway({ env: { KEY_CACHE_MS: '60000' }, now: () => new Date(Date.now() + clockAhead) }); // what changes here must not wait for the cache
  });
  afterEach(() => (clockAhead = 0));
  after(async () => gateway?.close());

  const models = (key: string) => fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  const funded = async () => {
    const made = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${made.customerId}/credits`, { amount: '5.00', reference: `fund-${made.customerId}` });
    return made;
  };

  it('lists customers newest first with a cursor, and searches names', async () => {
    const ids: string[] = [];
    for (const name of ['Alpha 100% Ltd', 'Beta', 'Gamma', 'alphabet_soup']) ids.push((await gateway.admin('POST', '/admin/v1/customers', { name })).body.id);
    const first = await gateway.admin('GET', '/admin/v1/customers?limit=3');
    expect(first.body.data.map((c: any) => c.id)).to.deep.equal(ids.slice(-3).reverse());
    expect(first.body).to.include({ object: 'list', has_more: true, next_after: ids[1] });
    const rest = await gateway.admin('GET', `/admin/v1/customers?limit=3&after=${first.body.next_after}`);
    expect(rest.body.data.map((c: any) => c.id)).to.include(ids[0]);
    expect((await gateway.admin('GET', '/admin/v1/customers?q=ALPHA')).body.data.map((c: any) => c.name)).to.deep.equal(['alphabet_soup', 'Alpha 100% Ltd']);
    expect((await gateway.admin('GET', '/admin/v1/customers?q=100%25')).body.data.map((c: any) => c.name)).to.deep.equal(['Alpha 100% Ltd']);
    expect((await gateway.admin('GET', '/admin/v1/customers?q=a_s')).body.data.map((c: any) => c.name)).to.deep.equal([]); // _ is literal
    expect(first.body.data[0].status).to.equal('active');
  });

  it('suspends a customer: its keys get 403 in both shapes at once, nothing else changes, and reactivation lifts it', async () => {
    const { customerId, key } = await funded();
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200);
    const suspended = await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'suspended', name: 'Renamed' });
    expect(suspended.body).to.include({ status: 'suspended', name: 'Renamed' });
    const anthropic = await message(gateway.url, key, 'hi');
    expect(anthropic.status).to.equal(403);
    expect(((await anthropic.json()) as any).error).to.deep.equal({
      type: 'permission_error',
      message: 'This account is suspended; contact the operator of this gateway.',
    });
    const openai = await chat(gateway.url, key, 'hi');
    expect(openai.status).to.equal(403);
    expect(((await openai.json()) as any).error).to.include({ type: 'permission_error', code: 'customer_suspended' });
    expect((await models(key)).status).to.equal(403);
    expect((await gateway.wallet(customerId)).available).to.not.equal('0.000000'); // the balance stays
    await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'active' });
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200);
    expect((await gateway.admin('PATCH', '/admin/v1/customers/cus_nobody', { status: 'active' })).status).to.equal(404);
    expect((await gateway.admin('PATCH', `/admin/v1/customers/${customerId}`, { status: 'frozen' })).status).to.equal(400);
  });

  it('changes a key: name, models, limits shown in the key view, absent fields kept, null removing', async () => {
    const { keyId, key } = await funded();
    const patched = await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, {
      name: 'ci',
      allowed_models: ['sandbox/claude-haiku'],
      limits: { requests_per_minute: 60, max_concurrent: 4, spend_limit: { amount: '25.5', period: 'month' } },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.deep.include({ name: 'ci', allowed_models: ['sandbox/claude-haiku'], status: 'active', expires_at: null });
    expect(patched.body.limits).to.deep.equal({ requests_per_minute: 60, max_concurrent: 4, spend_limit: { amount: '25.500000', period: 'month' } });
    expect((await models(key)).status).to.equal(200);
    expect(((await (await models(key)).json()) as any).data.map((m: any) => m.id)).to.deep.equal(['sandbox/claude-haiku']); // at once, despite the cache
    const partial = await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { limits: { max_concurrent: null } });
    expect(partial.body.limits).to.deep.equal({ requests_per_minute: 60, max_concurrent: null, spend_limit: { amount: '25.500000', period: 'month' } });
    expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { limits: null })).body.limits).to.deep.equal({
      requests_per_minute: null,
      max_concurrent: null,
      spend_limit: null,
    });
    expect((await gateway.admin('GET', `/admin/v1/api-keys/${keyId}`)).body.name).to.equal('ci');
    for (const bad of [
      { limits: { requests_per_minute: 0 } },
      { limits: { spend_limit: { amount: '-1', period: 'day' } } },
      { limits: { spend_limit: { amount: '1', period: 'week' } } },
      { expires_at: 'tomorrow' },
      {},
    ]) {
      expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, bad)).status, JSON.stringify(bad)).to.equal(400);
    }
    expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { allowed_models: ['nope/x'] })).body.error.code).to.equal('unknown_model');
    expect((await gateway.admin('PATCH', '/admin/v1/api-keys/key_nobody', { name: 'x' })).status).to.equal(404);
  });

  it('expires a key at expires_at: 401 api_key_expired, shown as expired; a new expiry revives it', async () => {
    const { keyId, key } = await funded();
    const past = await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { expires_at: '2020-01-01T00:00:00Z' });
    expect(past.body).to.include({ status: 'expired', expires_at: '2020-01-01T00:00:00.000Z' });
    const refused = await message(gateway.url, key, 'hi');
    expect(refused.status).to.equal(401);
    expect(((await refused.json()) as any).error.type).to.equal('authentication_error');
    const openai = await models(key);
    expect(((await openai.json()) as any).error).to.include({ code: 'api_key_expired', type: 'authentication_error' });
    const soon = new Date(Date.now() + 4000).toISOString(); // room for a stalled machine before it passes
    await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { expires_at: soon });
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200); // remembered now, with its expiry
    clockAhead = Date.parse(soon) - Date.now() + 100; // the expiry has passed, as far as the gateway can tell
    expect((await message(gateway.url, key, 'hi')).status).to.equal(401);
    await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { expires_at: null });
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200);
  });

  it('rotates a key: the new secret once, the old one stopped at once or after its grace, limits and spend kept', async () => {
    const { keyId, key } = await funded();
    await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { limits: { requests_per_minute: 100 } });
    expect((await message(gateway.url, key, 'hi')).status).to.equal(200);
    const rotated = await gateway.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`, {});
    expect(rotated.status).to.equal(200);
    expect(rotated.body).to.include({ id: keyId, previous_key_valid_until: null });
    expect(rotated.body.key)
      .to.match(/^sk-gw-[0-9A-Za-z]{40}$/)
      .and.not.equal(key);
    expect(rotated.body.limits.requests_per_minute).to.equal(100);
    expect((await message(gateway.url, key, 'hi')).status).to.equal(401);
    expect((await message(gateway.url, rotated.body.key, 'hi')).status).to.equal(200);

    const graced = await gateway.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`, { grace_seconds: 4 });
    expect(Date.parse(graced.body.previous_key_valid_until) - Date.now()).to.be.within(0, 4000);
    expect((await message(gateway.url, rotated.body.key, 'hi')).status).to.equal(200); // the old one, within its grace
    expect((await message(gateway.url, graced.body.key, 'hi')).status).to.equal(200);
    clockAhead = Date.parse(graced.body.previous_key_valid_until) - Date.now() + 100; // the grace has ended
    expect((await message(gateway.url, rotated.body.key, 'hi')).status).to.equal(401);
    expect((await message(gateway.url, graced.body.key, 'hi')).status).to.equal(200);

    await gateway.settled();
    const view = (await (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${graced.body.key}` } })).json()) as any;
    expect(view).to.include({ id: keyId, redacted_key: graced.body.redacted_key });
    expect(Number(view.spend.total)).to.be.greaterThan(0); // the spend before the rotations stays with the key

    await gateway.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
    expect((await gateway.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`, {})).body.error.code).to.equal('api_key_revoked');
    expect((await gateway.admin('PATCH', `/admin/v1/api-keys/${keyId}`, { name: 'x' })).status).to.equal(409);
    expect((await gateway.admin('POST', `/admin/v1/api-keys/${keyId}/rotate`, { grace_seconds: -1 })).status).to.equal(400);
  });

  it('creates a key with limits and an expiry in one call', async () => {
    const { customerId } = await funded();
    const created = await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, {
      expires_at: '2099-01-01T00:00:00Z',
      limits: { spend_limit: { amount: '1', period: 'total' } },
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.include({
      expires_at: '2099-01-01T00:00:00.000Z',
      limits: { requests_per_minute: null, max_concurrent: null, spend_limit: { amount: '1.000000', period: 'total' } },
    });
    expect(
      (await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, { limits: { spend_limit: { amount: '9999999999', period: 'day' } } })).body
        .error.code,
    ).to.equal('invalid_limit');
  });
});
