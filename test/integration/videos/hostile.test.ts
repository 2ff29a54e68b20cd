import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

// Text PostgreSQL cannot store, and task ids no task has, on every video path: 400 or 404 in the
// error shape, never a 500, nothing stored or reserved, and the offending text never logged.
describe('video paths under hostile input', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let v: ReturnType<typeof videoCalls>;

  before(async () => {
    gateway = await startTestGateway();
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
    v = videoCalls(gateway, key);
  });
  after(async () => {
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    await gateway.close();
  });

  const MARK = 'hostile-7f3a';
  const unstorable: Array<[string, string]> = [
    ['NUL', `a cat ${MARK}\u0000 yawning`],
    ['lone high surrogate', `a cat ${MARK}\ud800 yawning`],
    ['lone low surrogate', `a cat ${MARK}\udc00 yawning`],
  ];

  it('refuses NUL and unpaired surrogates in a prompt, as JSON or multipart, before the database; they are never logged', async () => {
    for (const [what, prompt] of unstorable) {
      const json = await fetch(`${gateway.url}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        // JSON.stringify escapes lone surrogates as \\udXXX, exactly what a hostile client would send.
        body: JSON.stringify({ model: 'sandbox/seedance', prompt }),
      });
      expect(json.status, what).to.equal(400);
      expect(((await json.json()) as any).error, what).to.include({ type: 'invalid_request_error', param: 'prompt' });

      // Form fields are UTF-8: a lone surrogate cannot be encoded there (it arrives as U+FFFD), NUL can.
      if (what === 'NUL') {
        const form = await v.createForm([
          ['model', 'sandbox/seedance'],
          ['prompt', prompt],
        ]);
        expect(form.status, `${what} (multipart)`).to.equal(400);
        expect(form.body.error.param, `${what} (multipart)`).to.equal('prompt');
      }
      const item = await v.create({ model: 'sandbox/seedance', prompt: 'ok', content: [{ type: 'text', text: prompt }] });
      expect(item.status, `${what} (content item)`).to.equal(400);
      expect(item.body.error.param, `${what} (content item)`).to.equal('content.0.text');
    }
    expect(await gateway.db('video_tasks')).to.have.length(0);
    expect((await gateway.admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body.reserved).to.equal('0.000000');
    await gateway.services.requestLogs.flush();
    expect(gateway.rawLogs()).to.not.include(MARK);
    const rows = await gateway.requestLogs('', 7); // one row per refused request: 3 JSON, 1 multipart, 3 content items
    expect(rows).to.have.length(7);
    expect(JSON.stringify(rows)).to.not.include(MARK);
  });

  it('answers 400 or 404 for task ids no task can have, on every video path; never 500', async () => {
    const ids = [
      'vt_%00',
      'vt_a%00b',
      '%00',
      'vt_%ff',
      '%ff%fe',
      'vt_%ED%A0%80',
      `vt_${'a'.repeat(65)}`,
      `vt_${'a'.repeat(5000)}`,
      'video_123',
      'vt_a.b',
      'vt_%2e%2e',
      '..',
      'vt_nobody',
    ];
    for (const id of ids) {
      for (const [method, path] of [
        ['GET', `/v1/videos/${id}`],
        ['DELETE', `/v1/videos/${id}`],
        ['GET', `/v1/videos/${id}/content`],
        ['GET', `/v1/videos?after=${id}`],
      ] as const) {
        const response = await fetch(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
        expect([400, 404], `${method} ${path.slice(0, 60)}`).to.include(response.status);
        const body = (await response.json()) as any;
        expect(body.error.type, `${method} ${path.slice(0, 60)}`).to.be.a('string');
      }
    }
    // An id no task can have is a path no route serves: 404, as for an unknown task.
    expect((await fetch(`${gateway.url}/v1/videos/vt_%00`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(404);
    expect((await fetch(`${gateway.url}/v1/videos/vt_nobody`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(404);
    expect(gateway.logs.filter((l) => l.level === 50 || (l.status as number) >= 500)).to.deep.equal([]);
  });
});
