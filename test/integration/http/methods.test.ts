// A method the path is not served for: 405 with `Allow` naming the methods it takes, in the path's
// error shape, before authentication and without reading the body; a path nothing is served at stays
// a 404. Prism, serving the same documents as the mock (`npm run mock`), answers 405 for these too.
// HEAD is served as GET (no body) where GET answers JSON or text.
import { expect } from 'chai';
import { send } from '../../fuzz/http-client.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

describe('HTTP methods: 405 with Allow for a method a path is not served for', () => {
  let gateway: TestGateway;
  let key: string;
  before(async () => {
    gateway = await startTestGateway();
    ({ key } = await gateway.customerWithKey());
  });
  after(async () => gateway.close());

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => send(gateway.url, { method, path, headers, body }, 5000);

  it('answers /v1/messages in the Anthropic shape and the rest in the OpenAI shape, with or without a key', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/v1/messages', 'POST'],
      ['PUT', '/v1/messages/count_tokens', 'POST'],
      ['GET', '/v1/chat/completions', 'POST'],
      ['POST', '/v1/models', 'GET, HEAD'],
      ['DELETE', '/v1/models/pricing', 'GET, HEAD'],
      ['PATCH', '/v1/videos', 'GET, HEAD, POST'],
      ['POST', '/v1/videos/vt_abc', 'DELETE, GET, HEAD'],
      ['POST', '/v1/videos/vt_abc/content', 'GET'],
      ['POST', '/admin/v1/customers/cus_abc/wallet', 'GET, HEAD'],
      ['PUT', '/metrics', 'GET, HEAD'],
      ['PUT', '/metrics/', 'GET, HEAD'],
      ['OPTIONS', '/v1/messages', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      for (const headers of [{}, { authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
        const response = await call(method, path, headers);
        const what = `${method} ${path}`;
        expect(response.status, what).to.equal(405);
        expect(response.headers['allow'], what).to.equal(allow);
        const body = JSON.parse(response.text);
        if (path.startsWith('/v1/messages')) {
          expect(body, what).to.deep.equal({
            type: 'error',
            error: { type: 'invalid_request_error', message: `${method} is not served at this path; it takes ${allow}.` },
            request_id: response.headers['request-id'],
          });
        } else {
          expect(body, what).to.deep.equal({
            error: {
              message: `${method} is not served at this path; it takes ${allow}.`,
              type: 'invalid_request_error',
              code: 'method_not_allowed',
              param: null,
            },
          });
        }
      }
    }
  });

  it('serves HEAD as GET without the body where GET answers JSON or text; a download takes GET only', async () => {
    for (const [path, headers] of [
      ['/healthz', {}],
      ['/v1/models', { authorization: `Bearer ${key}` }],
      ['/metrics', { authorization: 'Bearer adm_test_token' }],
    ] as Array<[string, Record<string, string>]>) {
      const head = await call('HEAD', path, headers);
      const get = await call('GET', path, headers);
      expect(head.status, path).to.equal(200);
      expect(head.text, path).to.equal('');
      expect(head.headers['content-type'], path).to.equal(get.headers['content-type']);
      if (path !== '/metrics') expect(head.headers['content-length'], path).to.equal(String(Buffer.byteLength(get.text)));
    }
    expect((await call('HEAD', '/v1/models', { authorization: 'Bearer sk-gw-wrong' })).status).to.equal(401);
    // The access log counts the bytes sent: none for a HEAD.
    const head = await call('HEAD', '/v1/models', { authorization: `Bearer ${key}` });
    const get = await call('GET', '/v1/models', { authorization: `Bearer ${key}` });
    const bytesOf = (id: unknown) => gateway.logs.find((line) => line.msg === 'request' && line.request_id === id)?.bytes;
    // Each line is written once its response closed, a moment after the client had it.
    for (let i = 0; i < 100 && (bytesOf(head.headers['request-id']) === undefined || bytesOf(get.headers['request-id']) === undefined); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect([bytesOf(head.headers['request-id']), bytesOf(get.headers['request-id'])]).to.deep.equal([0, Buffer.byteLength(get.text)]);
    const download = await call('HEAD', '/v1/videos/vt_abc/content', { authorization: `Bearer ${key}` });
    expect(download.status).to.equal(405);
    expect(download.headers['allow']).to.equal('GET');
    expect(download.text).to.equal('');
  });

  it('reads no body and changes nothing: a body on a wrong method is not parsed, the next request on the connection is served', async () => {
    const response = await call('PUT', '/v1/messages', { 'content-type': 'application/json', 'x-api-key': key }, '{"not json');
    expect(response.status).to.equal(405);
    expect((await call('GET', '/v1/models', { authorization: `Bearer ${key}` })).status).to.equal(200);
  });

  it('keeps 404 for a path no method is served at, and for a trailing part no route has', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing'],
      ['POST', '/v1/videos/vt_abc/content/more'],
      ['DELETE', '/admin/v1/nothing'],
    ] as const) {
      const response = await call(method, path);
      expect(response.status, `${method} ${path}`).to.equal(404);
      expect(response.headers['allow'], `${method} ${path}`).to.equal(undefined);
    }
  });
});
