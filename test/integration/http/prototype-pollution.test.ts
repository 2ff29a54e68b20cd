// The hardening issue's worst case: a body that, decoded naively, writes to Object.prototype. The
// gateway runs in this process, so pollution would show here too. Nothing sent before
// authentication may change the process, and nothing sent after it either.
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const BOUNDARY = 'pollutionBoundary8Fh2';
const multipart = (fields: Array<[string, string]>) =>
  `${fields.map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')}--${BOUNDARY}--\r\n`;
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
const PAYLOADS: Array<Array<[string, string]>> = [
  [['__proto__[x]', '1']],
  [['constructor[prototype][x]', '1']],
  [
    ['model', 'sandbox/seedance'],
    ['prompt', 'p'],
    ['__proto__[x]', '1'],
    ['constructor[prototype][x]', '1'],
    ['a[__proto__][x]', '1'],
    ['content[][__proto__][x]', '1'],
  ],
];

function expectUnpolluted(): void {
  expect(({} as Record<string, unknown>).x).to.equal(undefined);
  expect(Object.prototype).not.to.have.own.property('x');
  expect(Object.getOwnPropertyNames(Object.prototype)).not.to.include('x');
}

describe('prototype pollution through request bodies', () => {
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  before(async () => {
    gateway = await startTestGateway();
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'pollution-test' });
  });
  after(async () => {
    expectUnpolluted();
    await gateway.close();
  });

  it('POST /healthz with multipart __proto__[x]=1 or constructor[prototype][x]=1 changes nothing, and every endpoint still works', async () => {
    for (const fields of PAYLOADS) {
      const response = await fetch(`${gateway.url}/healthz`, { method: 'POST', headers: MULTIPART, body: multipart(fields) });
      expect(response.status).to.equal(405); // /healthz is served for GET only
      expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('method_not_allowed');
      expectUnpolluted();
    }

    const models = await fetch(`${gateway.url}/v1/models`);
    expect(models.status).to.equal(200);
    const message = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/claude-haiku', max_tokens: 16, messages: [{ role: 'user', content: 'still there?' }] }),
    });
    expect(message.status).to.equal(200);
    expect(((await message.json()) as { type: string }).type).to.equal('message');
    const customer = await gateway.admin('GET', `/admin/v1/customers/${customerId}`);
    expect(customer.status).to.equal(200);
    expectUnpolluted();
  });

  it('the multipart endpoint (POST /v1/videos) does not read the body without a key, and refuses the fields with one', async () => {
    for (const fields of PAYLOADS) {
      const anonymous = await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: MULTIPART, body: multipart(fields) });
      expect(anonymous.status).to.equal(401);
      const keyed = await fetch(`${gateway.url}/v1/videos`, {
        method: 'POST',
        headers: { ...MULTIPART, authorization: `Bearer ${key}` },
        body: multipart(fields),
      });
      expect(keyed.status).to.equal(400);
      const body = (await keyed.json()) as { error: { message: string; param: string | null } };
      expect(body.error.message).to.match(/is not accepted/);
      expectUnpolluted();
    }
    const [tasks] = await gateway.db('video_tasks').where({ customer_id: customerId }).count<Array<{ n: string | number }>>('* as n');
    expect(Number(tasks!.n)).to.equal(0);
  });

  it('JSON bodies with __proto__ or constructor.prototype keys change nothing either, on the public and the admin surface', async () => {
    const bodies = [
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"name":"n","__proto__":{"x":1}}',
      '{"model":"sandbox/claude-haiku","max_tokens":1,"messages":[{"role":"user","content":"x","__proto__":{"x":1}}]}',
    ];
    for (const body of bodies) {
      for (const [path, auth] of [
        ['/v1/messages', { 'x-api-key': key }],
        ['/v1/messages/count_tokens', { 'x-api-key': key }],
        ['/v1/videos', { authorization: `Bearer ${key}` }],
        ['/admin/v1/customers', { authorization: `Bearer ${gateway.adminToken}` }],
        [`/admin/v1/customers/${customerId}/credits`, { authorization: `Bearer ${gateway.adminToken}` }],
      ] as const) {
        const response = await fetch(gateway.url + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
        // 404 where the body names no model (count_tokens looks the model up first).
        expect(response.status, `${path} ${body}`).to.be.oneOf([400, 404]);
        expectUnpolluted();
      }
    }
  });
});
