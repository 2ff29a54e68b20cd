// The official google-genai SDK (`@google/genai`) against a running gateway and the simulated
// Gemini provider: generateContent, generateContentStream and countTokens, each billed exactly as
// the provider counted (countTokens free), models.list and models.get, and the SDK's ApiError for
// the gateway's refusals.
import { ApiError, GoogleGenAI } from '@google/genai';
import { expect } from 'chai';
import type { GeminiSimulator } from '../../src/sandbox/gemini/server.ts';
import { flashMicros, GEMINI_MODEL, geminiCost } from '../helpers/gemini.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { formatMicros } from '../../src/shared/money.ts';

describe('google-genai SDK against the gateway', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let studio: GeminiSimulator;
  let ai: GoogleGenAI;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    studio = gateway.simulators.get('sandbox-gemini') as GeminiSimulator;
    const created = await gateway.customerWithKey();
    customerId = created.customerId;
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
    ai = new GoogleGenAI({ apiKey: created.key, httpOptions: { baseUrl: gateway.url } });
  });
  after(async () => gateway.close());

  const debits = async () => (await gateway.wallet(customerId)).debits as string;
  const plus = (a: string, b: string) => (Number(a) + Number(b)).toFixed(6);

  it('generateContent: the answer and its usage, billed exactly', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const response = await ai.models.generateContent({
      model: GEMINI_MODEL,
      contents: 'Hello [[sim cached=2 reasoning=4]]',
      config: {
        maxOutputTokens: 512,
        thinkingConfig: { includeThoughts: true },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as never, threshold: 'BLOCK_NONE' as never }],
      },
    });
    expect(response.text).to.equal('Hello from the sandbox model. This answer is');
    expect(response.modelVersion).to.equal(GEMINI_MODEL);
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.headers['x-goog-api-key']).to.equal('sandbox');
    expect(sent!.body!.safetySettings).to.deep.equal([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
    expect(response.usageMetadata).to.deep.include({ cachedContentTokenCount: 2, thoughtsTokenCount: 4 });
    expect(await debits()).to.equal(plus(paid, geminiCost(sent!.billed!)));
  });

  it('generateContentStream: the chunks as they come, billed from the last one', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    let text = '';
    let last: unknown;
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-3.5-flash-lite', contents: 'Stream please' })) {
      text += chunk.text ?? '';
      last = chunk.usageMetadata;
    }
    expect(text).to.equal('Hello from the sandbox model. This answer is');
    const [sent] = studio.exchanges.slice(before);
    expect(sent!.path).to.equal('/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse');
    expect(last).to.deep.include({ candidatesTokenCount: sent!.billed!.candidatesTokenCount });
    expect(await debits()).to.equal(plus(paid, formatMicros(flashMicros(sent!.billed!))));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=gemini_stream_generate_content`);
    expect(log).to.include({ model: 'sandbox/gemini-flash', stream: true, usage_estimated: false });
  });

  it('countTokens: the provider’s count, free of charge', async () => {
    const paid = await debits();
    const counted = await ai.models.countTokens({ model: GEMINI_MODEL, contents: 'How many tokens?' });
    expect(counted.totalTokens).to.be.a('number').greaterThan(0);
    expect(await debits()).to.equal(paid);
  });

  it('models.list and models.get answer the key’s gemini models', async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name ?? '');
    expect(names).to.include.members(['models/sandbox/gemini-pro', 'models/sandbox/gemini-flash']);
    const model = await ai.models.get({ model: 'gemini-3.1-pro-preview' });
    expect(model).to.deep.include({ name: 'models/gemini-3.1-pro-preview', inputTokenLimit: 1048576, outputTokenLimit: 65536 });
  });

  it('raises ApiError with Google’s status for a refusal: a balance too low is 403, an unknown model 404', async () => {
    const poor = await gateway.customerWithKey();
    const broke = new GoogleGenAI({ apiKey: poor.key, httpOptions: { baseUrl: gateway.url } });
    const refused = await broke.models.generateContent({ model: GEMINI_MODEL, contents: 'Hi' }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).status).to.equal(403);
    expect((refused as ApiError).message).to.include('balance is too low');
    const missing = await ai.models.generateContent({ model: 'gemini-0-nothing', contents: 'Hi' }).catch((e: unknown) => e);
    expect((missing as ApiError).status).to.equal(404);
  });
});
