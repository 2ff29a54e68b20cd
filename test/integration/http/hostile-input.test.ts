// Regression tests for what the fuzz suite (test/fuzz/) found in the HTTP layer and the contract:
// each input here once crashed the process, answered 500, or answered outside the contract.
import { expect } from 'chai';
import { send } from '../../fuzz/http-client.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const BOUNDARY = 'hostileBoundaryQ3vX';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const part = (disposition: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n${value}\r\n`;

describe('HTTP edges: hostile input the fuzz suite found', () => {
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  const customer = () => ({ authorization: `Bearer ${key}` });
  const get = (path: string, headers: Record<string, string>) => send(gateway.url, { method: 'GET', path, headers }, 5000);
  const errorOf = (text: string) => (JSON.parse(text) as { error: { message: string; code: string | null; param: string | null } }).error;

  before(async () => {
    gateway = await startTestGateway({ env: { BODY_LIMIT_BYTES: '65536' } });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'hostile-input' });
  });
  after(async () => gateway.close());

  it('refuses a multipart part without a name (400) instead of throwing inside the parser and ending the process', async () => {
    for (const disposition of ['form-data; name=""', 'form-data', 'form-data; filename="a.png"']) {
      const body = `${part('form-data; name="model"', 'sandbox/seedance')}${part(disposition, 'x')}--${BOUNDARY}--\r\n`;
      const response = await send(gateway.url, { method: 'POST', path: '/v1/videos', headers: { ...customer(), 'content-type': MULTIPART }, body }, 5000);
      expect(response.status, disposition).to.equal(400);
      expect(errorOf(response.text).code).to.equal('invalid_request');
    }
    expect((await get('/healthz', {})).status).to.equal(200);
  });

  it('refuses NUL in a multipart value before anything is stored, and reserves nothing', async () => {
    const before = await gateway.wallet(customerId);
    const body = `${part('form-data; name="model"', 'sandbox/seedance')}${part('form-data; name="prompt"', 'a\u0000b')}${part('form-data; name="seconds"', '5')}--${BOUNDARY}--\r\n`;
    const response = await send(gateway.url, { method: 'POST', path: '/v1/videos', headers: { ...customer(), 'content-type': MULTIPART }, body }, 5000);
    expect(response.status).to.equal(400);
    expect(errorOf(response.text).param).to.equal('prompt');
    const [tasks] = await gateway.db('video_tasks').where({ customer_id: customerId }).count<Array<{ n: string | number }>>('* as n');
    expect(Number(tasks!.n)).to.equal(0);
    expect(await gateway.wallet(customerId)).to.deep.equal(before);
  });

  it('answers a multipart Content-Length over the limit at once (413), without waiting for bytes that never come', async () => {
    const started = Date.now();
    const response = await send(gateway.url, { method: 'POST', path: '/v1/videos', headers: { ...customer(), 'content-type': MULTIPART, 'content-length': '99999999999' }, body: part('form-data; name="model"', 'x') }, 5000);
    expect(response.timedOut).to.equal(false);
    expect(response.status).to.equal(413);
    expect(Date.now() - started).to.be.below(4000);
  });
});
