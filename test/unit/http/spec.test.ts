import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { loadSpec, type FieldProblem, type RequestToValidate, type Spec, type SpecOperation } from '../../../src/http/spec.ts';

describe('the contract at run time', () => {
  let spec: Spec;
  before(async () => {
    spec = await loadSpec(path.join(ROOT_DIR, 'generated/openapi.json'));
  });

  const match = (method: string, raw: string) => spec.match(method, raw);

  it('compiles a bundle once per process, and again once the file on disk changes', async () => {
    expect(await loadSpec(path.join(ROOT_DIR, 'generated/openapi.json'))).to.equal(spec);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-'));
    try {
      const copy = path.join(dir, 'openapi.json');
      const bundle = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated/openapi.json'), 'utf8'));
      fs.writeFileSync(copy, JSON.stringify(bundle));
      const first = await loadSpec(copy);
      expect(first).to.not.equal(spec);
      expect(await loadSpec(copy)).to.equal(first);
      delete bundle.paths['/v1/models'];
      fs.writeFileSync(copy, JSON.stringify(bundle));
      const changed = await loadSpec(copy);
      expect(changed).to.not.equal(first);
      expect(changed.match('GET', '/v1/models')).to.equal(undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('routes static paths and templates, decoding path parameters once', () => {
    expect((match('GET', '/v1/models') as any).operation.operationId).to.equal('models_list');
    expect((match('GET', '/v1/models/') as any).operation.operationId).to.equal('models_list');
    const found = match('GET', '/v1/models/sandbox%2Fclaude-sonnet') as any;
    expect(found.operation.operationId).to.equal('models_retrieve');
    expect(found.params).to.deep.equal({ model_id: 'sandbox/claude-sonnet' });
    expect(match('DELETE', '/v1/models')).to.deep.equal({ allowed: ['GET', 'HEAD'] });
    expect(match('PUT', '/v1/videos/vt_abc')).to.deep.equal({ allowed: ['DELETE', 'GET', 'HEAD'] });
    expect((match('HEAD', '/v1/videos/vt_abc') as any).operation.operationId).to.equal('videos_get');
    expect(match('HEAD', '/v1/videos/vt_abc/content')).to.deep.equal({ allowed: ['GET'] });
    expect(match('GET', '/v2/nothing')).to.equal(undefined);
  });

  it('answers malformed percent-encoding in a parameter as malformed, not as an exception', () => {
    expect(match('GET', '/v1/models/%ff')).to.deep.equal({ malformed: true });
    expect(match('GET', '/v1/models/%')).to.deep.equal({ malformed: true });
  });

  it('knows which operations are passthrough and which query parameters each declares', () => {
    const messages = (match('POST', '/v1/messages') as any).operation;
    expect(messages.passthrough).to.equal(true);
    expect([...messages.schemes]).to.have.members(['ApiKeyBearer', 'ApiKeyHeader']);
    expect((match('GET', '/v1/models') as any).operation.anonymousAllowed).to.equal(true);
    // Anthropic's list shape pages by these; the OpenAI SDK's `?beta=true` and the like are dropped.
    expect([...(match('GET', '/v1/models') as any).operation.declaredQuery]).to.deep.equal(['limit', 'after_id', 'before_id']);
    expect([...(match('GET', '/v1/models') as any).operation.schemes]).to.have.members(['ApiKeyBearer', 'ApiKeyHeader']);
    expect([...(match('GET', '/v1/wallet') as any).operation.declaredQuery]).to.deep.equal([]);
  });

  const validate = (method: string, rawPath: string, request: Partial<RequestToValidate>) => {
    const operation = (spec.match(method, rawPath) as { operation: SpecOperation }).operation;
    return spec.validateRequest(operation, { method, rawPath, headers: {}, query: {}, body: undefined, form: 'none', ...request });
  };

  it('validates with openapi-backend and names the field of the first problem, in request order', () => {
    expect(validate('POST', '/v1/videos', { body: { prompt: 'x' }, form: 'json' })).to.deep.equal({
      problem: { message: 'Missing required field `model`.', param: 'model', where: 'body' },
    });
    expect(validate('POST', '/v1/videos', { body: { model: 'm', seconds: '5' }, form: 'multipart' })).to.have.property('query'); // form values are strings, coerced
    expect(validate('POST', '/v1/videos', { body: { model: 'm', extra: 1 }, form: 'json' })).to.deep.equal({
      problem: { message: 'Unknown body field `extra`.', param: 'extra', where: 'body' },
    });
    expect(validate('POST', '/v1/videos', {})).to.deep.equal({ problem: { message: 'A request body is required.', param: null, where: 'body' } });
    // A bad query parameter is named before a bad body; a bad path parameter before both.
    expect(validate('GET', '/v1/videos', { query: { limit: 'x' } })).to.deep.equal({
      problem: { message: 'Invalid query field `limit`: must be integer.', param: 'limit', where: 'query' },
    });
    expect((validate('GET', '/v1/videos/abc', {}) as { problem: FieldProblem }).problem.where).to.equal('path');
  });

  it('coerces query parameters to their schema types', () => {
    expect(validate('GET', '/v1/videos', { query: { limit: '5', order: 'asc' } })).to.deep.equal({ query: { limit: 5, order: 'asc' } });
  });

  it('checks a passthrough body as an object only: the provider validates the rest', () => {
    expect(validate('POST', '/v1/messages', { body: { anything: [1], max_tokens: 'not a number' }, form: 'json' })).to.have.property('query');
    expect(validate('POST', '/v1/messages', { body: [1], form: 'json' })).to.have.property('problem');
  });

  it('remembers static-path matches and answers them as openapi-backend did', () => {
    const first = match('POST', '/v1/messages') as { operation: SpecOperation };
    expect(match('POST', '/v1/messages')).to.deep.equal(first);
    expect((match('HEAD', '/healthz') as { operation: SpecOperation }).operation.operationId).to.equal('health_get');
    expect(match('POST', '/healthz')).to.deep.equal({ allowed: ['GET', 'HEAD'] });
  });
});
