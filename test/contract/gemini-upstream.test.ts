// The Gemini simulator (AI Studio and Vertex AI) and what the gateway sends it, against the
// vendored subset of Google's published definitions (openapi/upstream/gemini-api.yaml).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT_DIR } from '../../src/config.ts';
import { GENERATE_FIELDS } from '../../src/sandbox/gemini/refusals.ts';
import { startGeminiSimulator, type GeminiSimulator, type RecordedGeminiExchange } from '../../src/sandbox/gemini/server.ts';
import { GEMINI_MODEL } from '../helpers/gemini.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { validateUpstreamRequest, validateUpstreamResponse } from '../helpers/upstream-contract.ts';

const API = 'gemini-api';
const ask = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }] });

/** A recorded answer as the validator takes it: the JSON-array stream's text parsed. */
const answerOf = (e: RecordedGeminiExchange): unknown => (typeof e.answer === 'string' && e.contentType.includes('json') ? JSON.parse(e.answer) : e.answer);

/** Every problem of one recorded exchange: its request and its answer. */
function problemsOf(exchange: RecordedGeminiExchange): string[] {
  if (exchange.path === '/token') return []; // the service account's token endpoint: google-oauth2-token's contract
  const label = `${exchange.method} ${exchange.path}`;
  const request = exchange.method === 'GET' ? [] : validateUpstreamRequest(API, exchange.method, exchange.path, exchange.body);
  const answer = validateUpstreamResponse(API, exchange.method, exchange.path, exchange.status, answerOf(exchange), exchange.contentType);
  return [...request, ...answer].map((p) => `${label}: ${p}`);
}

describe('contract: the Gemini simulator and the gateway against openapi/upstream/gemini-api.yaml', function () {
  this.timeout(60_000);

  it('refuses exactly the top-level names GenerateContentRequest does not have', () => {
    const doc = parse(fs.readFileSync(path.join(ROOT_DIR, 'openapi/upstream/gemini-api.yaml'), 'utf8'));
    expect([...GENERATE_FIELDS].sort()).to.deep.equal(Object.keys(doc.components.schemas.GenerateContentRequest.properties).sort());
  });

  describe('the simulator', () => {
    let studio: GeminiSimulator;
    before(async () => (studio = await startGeminiSimulator()));
    after(async () => studio.close());
    const post = (model: string, method: string, body: unknown, query = '') =>
      fetch(`${studio.baseUrl}/v1beta/models/${model}:${method}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
        body: JSON.stringify(body),
      }).then((r) => r.text());

    it('answers every method and every refusal as the contract says', async () => {
      await post('gemini-3.5-flash', 'generateContent', ask('Hello [[sim cached=2 reasoning=3]]'));
      await post('gemini-3.5-flash', 'generateContent', ask('Weather? [[sim tool]]'));
      await post('gemini-3.5-flash', 'generateContent', {
        ...ask('Score it'),
        generationConfig: {
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'OBJECT', properties: { score: { type: 'INTEGER' } }, required: ['score'] },
        },
      });
      await post('gemini-3.5-flash', 'streamGenerateContent', ask('Hello'), '?alt=sse');
      await post('gemini-3.5-flash', 'streamGenerateContent', ask('Hello'));
      await post('gemini-3.5-flash', 'streamGenerateContent', ask('Hello [[sim error_event=2]]'), '?alt=sse');
      await post('gemini-3.5-flash', 'countTokens', ask('Count me'));
      await post('gemini-3.5-flash', 'generateContent', { contents: [] });
      await post('gemini-3.5-flash', 'generateContent', { ...ask('x'), temperature: 1 });
      await post('text-bison-001', 'generateContent', ask('x'));
      await post('gemini-3.5-flash', 'generateContent', ask('x [[sim error=429]]'));
      await fetch(`${studio.baseUrl}/v1beta/models/gemini-3.5-flash:generateContent`, { method: 'POST', body: '{}' }); // no key
      await fetch(`${studio.baseUrl}/v1beta/models?key=k`);
      await fetch(`${studio.baseUrl}/v1beta/models/gemini-3.5-flash?key=k`);
      const statuses = studio.exchanges.map((e) => e.status);
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200, 200, 400, 400, 404, 429, 403, 404, 200]);
      for (const exchange of studio.exchanges.filter((e) => e.status === 200 || e.status >= 400)) {
        const answer = validateUpstreamResponse(API, exchange.method, exchange.path, exchange.status, answerOf(exchange), exchange.contentType);
        expect(answer, `${exchange.method} ${exchange.path}`).to.deep.equal([]);
      }
    });
  });

  it('the gateway sends only requests the contract admits, to AI Studio and to Vertex AI, and the simulators answer by it', async () => {
    const gateway = await startTestGateway();
    try {
      const studio = gateway.simulators.get('sandbox-gemini') as GeminiSimulator;
      const vertex = gateway.simulators.get('sandbox-vertex-gemini') as GeminiSimulator;
      const { key, customerId } = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'fund' });
      const call = (method: string, body: unknown, query = '') =>
        fetch(`${gateway.url}/v1beta/models/${GEMINI_MODEL}:${method}${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
          body: JSON.stringify(body),
        }).then((r) => r.text());
      await call('generateContent', { ...ask('Hi'), generationConfig: { maxOutputTokens: 64, thinkingConfig: { thinkingLevel: 'LOW' } } });
      await call('streamGenerateContent', ask('Hi'), '?alt=sse');
      await call('streamGenerateContent', ask('Hi'));
      await call('countTokens', ask('Hi'));
      studio.next({ error: 503 });
      await call('generateContent', ask('Over to Vertex'));
      expect(vertex.exchanges.filter((e) => e.path !== '/token')).to.have.length(1);
      expect([...studio.exchanges, ...vertex.exchanges].flatMap(problemsOf)).to.deep.equal([]);
    } finally {
      await gateway.close();
    }
  });
});
