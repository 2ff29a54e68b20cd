import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { loadSpec, type Spec } from '../../../src/http/spec.ts';

describe('the contract at run time', () => {
  let spec: Spec;
  before(async () => {
    spec = await loadSpec(path.join(ROOT_DIR, 'generated/openapi.json'));
  });

  const match = (method: string, raw: string) => spec.match(method, raw);

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
    expect([...(match('GET', '/v1/models') as any).operation.declaredQuery]).to.deep.equal([]);
  });

  it('names the field of the first problem', () => {
    const videos = (match('POST', '/v1/videos') as any).operation;
    expect(videos.validate('json', { prompt: 'x' })).to.deep.equal({ message: 'Missing required field `model`.', param: 'model' });
    expect(videos.validate('multipart', { model: 'm', seconds: '5' })).to.equal(null); // form values are strings, coerced
  });
});
