import { expect } from 'chai';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('official openai SDK: models.list and models.retrieve', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  after(async () => gateway.close());

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

  it('works with a key, listing what the key may reach', async () => {
    const { key } = await gateway.customerWithKey({ allowedModels: ['sandbox/claude-haiku', 'sandbox/seedance'] });
    const page = await client(key).models.list();
    expect(page.data.map((m) => m.id).sort()).to.deep.equal(['sandbox/claude-haiku', 'sandbox/seedance']);
    const model = await client(key).models.retrieve('sandbox/seedance');
    expect(model).to.include({ id: 'sandbox/seedance', object: 'model', owned_by: 'gateway' });
  });

  it('works without a key (the SDK sends an empty bearer only if given one, so send none)', async () => {
    const anonymous = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { authorization: null } });
    const page = await anonymous.models.list();
    expect(page.data.map((m) => m.id)).to.include('sandbox/claude-sonnet');
    const model = await anonymous.models.retrieve('sandbox/claude-sonnet');
    expect(model.owned_by).to.equal('gateway');
  });

  it('raises the typed 401 for a revoked key and the typed 404 for an unknown model', async () => {
    const { key, keyId } = await gateway.customerWithKey();
    await client(key).models.list();
    await gateway.admin('DELETE', `/admin/v1/api-keys/${keyId}`);
    let error: unknown;
    try {
      await client(key).models.list();
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).status).to.equal(401);

    const { key: live } = await gateway.customerWithKey();
    try {
      await client(live).models.retrieve('nobody/nothing');
      expect.fail('expected a 404');
    } catch (caught) {
      expect(caught).to.be.instanceOf(OpenAI.NotFoundError);
      expect((caught as InstanceType<typeof OpenAI.NotFoundError>).code).to.equal('model_not_found');
    }
  });
});
