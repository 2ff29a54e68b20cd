import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { OpenAPIBackend, OpenAPIRouter, OpenAPIValidator, type Document, type Operation, type Request } from 'openapi-backend';
import { ROOT_DIR } from '../../../src/config.ts';
import { newAjv } from '../../../src/http/ajv.ts';
import { FixedRouter, QuickValidator } from '../../../src/http/openapi-quick.ts';

/** Both documents' operations, dereferenced as src/http/spec.ts loads them. */
async function definitionOf(file: string): Promise<Document> {
  const input = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated', file), 'utf8')) as Document;
  const backend = new OpenAPIBackend({ definition: input, strict: true, validate: false, quick: true });
  Object.assign(backend, { validateDefinition: () => undefined });
  await backend.init();
  return backend.definition;
}

function validatorOf(definition: Document, quick: boolean): OpenAPIValidator {
  const router = quick ? new FixedRouter({ definition, ignoreTrailingSlashes: true }) : new OpenAPIRouter({ definition, ignoreTrailingSlashes: true });
  // One Ajv per validation context, as src/http/spec.ts has it (one per operation compiled every
  // schema again: five seconds a document).
  const ajvs = new Map<string, unknown>();
  const options = {
    definition,
    router,
    coerceTypes: true,
    lazyCompileValidators: true,
    customizeAjv: (_d: unknown, o: object, context?: string) => {
      const key = `${context}:${String((o as { coerceTypes?: unknown }).coerceTypes)}`;
      if (!ajvs.has(key)) ajvs.set(key, newAjv(o as Record<string, unknown>));
      return ajvs.get(key) as never;
    },
  };
  return quick ? new QuickValidator(options) : new OpenAPIValidator(options);
}

const NODE_HEADERS = { host: '127.0.0.1:8080', connection: 'keep-alive', authorization: 'Bearer sk-gw-x', 'user-agent': 'test', 'content-length': '20' };

/** Requests as the validate step hands them over (fresh each time: Ajv coerces in place), and some it never does. */
const requestsFor = (op: Operation): Array<() => Request> => {
  const path = op.path;
  const method = op.method.toUpperCase();
  const bodies: unknown[] = [
    undefined,
    {},
    { model: 'sandbox/x', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
    { model: 7, extra: true },
    null,
    [1],
  ];
  const headerSets: Array<Record<string, string>> = [
    { ...NODE_HEADERS, 'content-type': 'application/json' },
    { ...NODE_HEADERS, 'content-type': 'Application/JSON; charset=utf-8', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
    { ...NODE_HEADERS },
    { ...NODE_HEADERS, 'Content-Type': 'application/json', 'X-Custom': 'a' }, // not Node's, but the copy lower-cases as lodash does
    { ...NODE_HEADERS, 'content-type': 'application/json', cookie: 'a=1; b=2' }, // openapi-backend's own parsing
  ];
  const requests: Array<() => Request> = [];
  for (const body of bodies)
    for (const headers of headerSets) {
      requests.push(() => ({ method, path, headers: { ...headers }, query: {}, body: structuredClone(body) }));
      requests.push(() => ({ method, path: `${path}/`, headers: { ...headers }, query: {}, body: structuredClone(body) }));
    }
  requests.push(() => ({ method, path, headers: { ...NODE_HEADERS }, query: { limit: '5' }, body: undefined })); // a query: openapi-backend's own
  requests.push(() => ({ method, path, headers: { ...NODE_HEADERS, 'content-type': 'application/json' }, query: {}, body: '{"a":' })); // text: its own
  return requests;
};

describe('openapi-backend quick path (src/http/openapi-quick.ts)', function () {
  this.timeout(60_000);
  for (const file of ['openapi.json', 'admin.json']) {
    it(`parses and validates as openapi-backend does, key for key, on every operation of ${file}`, async () => {
      const definition = await definitionOf(file);
      const own = validatorOf(definition, false);
      const quick = validatorOf(definition, true);
      let compared = 0;
      for (const op of own.router.getOperations()) {
        for (const make of requestsFor(op)) {
          expect(quick.router.parseRequest(make(), op), `${op.operationId} parse`).to.deep.equal(own.router.parseRequest(make(), op));
          expect(quick.validateRequest(make(), op), `${op.operationId} validate`).to.deep.equal(own.validateRequest(make(), op));
          compared++;
        }
      }
      expect(compared).to.be.greaterThan(100);
    });
  }

  it('takes the quick path for a body request at a path without parameters', () => {
    const router = new FixedRouter({ definition: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } as Document });
    const op = { path: '/v1/chat/completions', method: 'post', operationId: 'x' } as Operation;
    const parsed = router.parseRequest({ method: 'POST', path: '/v1/chat/completions', headers: { ...NODE_HEADERS }, query: {}, body: { a: 1 } }, op);
    expect(parsed).to.deep.include({ method: 'post', path: '/v1/chat/completions', params: {}, query: {}, requestBody: { a: 1 } });
    expect(parsed.headers).to.deep.equal(NODE_HEADERS);
    expect(parsed.headers).not.to.equal(NODE_HEADERS); // a copy: Ajv may coerce its values
  });
});
