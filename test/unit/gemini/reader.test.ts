import { expect } from 'chai';
import type { ResolvedModel } from '../../../src/catalogue/store.ts';
import { checkGemini, inspectGemini } from '../../../src/domain/gemini/fields.ts';
import { geminiReader, type GeminiFraming } from '../../../src/domain/gemini/reader.ts';
import { Failure } from '../../../src/domain/failure.ts';
import { parseFrame } from '../../../src/domain/passthrough/sse.ts';
import { costOf } from '../../../src/pricing/cost.ts';

const PRICE = { input_per_mtok: '2.00', output_per_mtok: '12.00', cache_read_per_mtok: '0.20' };
const reader = (framing: GeminiFraming, maxOutputTokens = 1000) =>
  geminiReader({
    inspected: { stream: framing !== 'json', inputTokens: 50, maxOutputTokens },
    framing,
    publicModel: 'sandbox/gemini-pro',
    upstreamModel: 'gemini-x',
  });
const frame = (chunk: unknown) => parseFrame(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
const chunk = (text: string, usage: Record<string, number> | undefined, finish?: string) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
  ...(usage ? { usageMetadata: usage } : {}),
  modelVersion: 'gemini-x',
});

describe('gemini reader: usage from usageMetadata, framing of streams', () => {
  it('bills the last chunk’s totals: cached prompt at the cache-read price, tool-use prompt as input, thoughts and candidates as output', () => {
    const r = reader('sse');
    r.frame(frame(chunk('Hel', { promptTokenCount: 100, cachedContentTokenCount: 40, candidatesTokenCount: 1 })));
    expect(r.complete()).to.equal(false);
    r.frame(
      frame(
        chunk(
          'lo',
          { promptTokenCount: 100, cachedContentTokenCount: 40, candidatesTokenCount: 3, thoughtsTokenCount: 20, toolUsePromptTokenCount: 5 },
          'STOP',
        ),
      ),
    );
    expect(r.complete()).to.equal(true);
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(false);
    expect(bill.log).to.include({ input_tokens: 65, cache_read_tokens: 40, output_tokens: 23 });
    // 65 x 2.00 + 40 x 0.20 + 23 x 12.00 per million, rounded up once.
    expect(costOf(bill.lines)).to.equal(414n);
  });

  it('passes SSE frames as received but for modelVersion naming the upstream model', () => {
    const r = reader('sse');
    const out = r.frame(frame(chunk('Hi', { promptTokenCount: 1, candidatesTokenCount: 1 }, 'STOP')));
    expect(out).to.equal(
      `data: ${JSON.stringify({ ...chunk('Hi', { promptTokenCount: 1, candidatesTokenCount: 1 }, 'STOP'), modelVersion: 'sandbox/gemini-pro' })}\r\n\r\n`,
    );
    const other = { ...chunk('x', undefined), modelVersion: 'gemini-x-002' };
    expect(r.frame(frame(other))).to.equal(`data: ${JSON.stringify(other)}\r\n\r\n`);
  });

  it('writes the JSON-array stream for a client that did not ask for SSE: [, chunks joined by ,\\r\\n, ]', () => {
    const r = reader('array');
    const first = r.frame(frame(chunk('a', { promptTokenCount: 1, candidatesTokenCount: 1 })));
    const second = r.frame(frame(chunk('b', { promptTokenCount: 1, candidatesTokenCount: 2 }, 'STOP')));
    const text = first + second + r.end!();
    expect(first.startsWith('[{')).to.equal(true);
    expect(second.startsWith(',\r\n{')).to.equal(true);
    expect((JSON.parse(text) as unknown[]).length).to.equal(2);
    expect(reader('array').end!()).to.equal('[]');
    const cut = reader('array');
    const opened = cut.frame(frame(chunk('a', undefined)));
    expect(JSON.parse(opened + cut.streamError!('api_error', 'cut'))).to.deep.equal([
      { ...chunk('a', undefined), modelVersion: 'sandbox/gemini-pro' },
      { error: { code: 500, message: 'cut', status: 'INTERNAL' } },
    ]);
  });

  it('estimates what the provider did not report, says why, and never bills output past the request’s bound', () => {
    const r = reader('sse', 10);
    r.frame(frame(chunk('x'.repeat(400), undefined)));
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(true);
    expect(bill.log).to.include({ input_tokens: 50, output_tokens: 10, estimate_reason: 'input_not_reported,output_not_reported' });
    expect(bill.log.usage_detail).to.deep.equal({ output_tokens_reported: 100 });
  });

  it('notes an error chunk after the 200, and a blocked prompt as a complete answer', () => {
    const r = reader('sse');
    r.frame(frame({ error: { code: 500, message: 'boom', status: 'INTERNAL' } }));
    expect(r.errored()).to.equal(true);
    const blocked = reader('json');
    expect(blocked.json(JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9 } }))).to.be.a('string');
    expect(blocked.complete()).to.equal(true);
    expect(blocked.bill(PRICE).log).to.include({ input_tokens: 9, output_tokens: 0 });
  });
});

describe('gemini fields: what the gateway reads of a request', () => {
  const model = { max_output_tokens: 8192 } as ResolvedModel;
  const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];

  it('checks contents and the output limits, by their JSON or proto names', () => {
    expect(checkGemini({ contents })).to.equal(undefined);
    expect(checkGemini({ contents: [] })).to.be.instanceOf(Failure);
    expect(checkGemini({ contents: ['text'] })?.details.param).to.equal('contents[0]');
    expect(checkGemini({ contents, generationConfig: { maxOutputTokens: 0 } })?.details.param).to.equal('generationConfig.maxOutputTokens');
    expect(checkGemini({ contents, generation_config: { candidate_count: 9 } })?.details.param).to.equal('generationConfig.candidateCount');
    expect(checkGemini({}, true)).to.equal(undefined); // countTokens may carry generateContentRequest instead
  });

  it('holds maxOutputTokens (else the model’s limit) times candidateCount, and refuses more than the model allows', () => {
    expect(inspectGemini({ contents, generationConfig: { maxOutputTokens: 100, candidateCount: 3 } }, model, true)).to.include({
      maxOutputTokens: 300,
      stream: true,
    });
    expect(inspectGemini({ contents }, model, false)).to.include({ maxOutputTokens: 8192, stream: false });
    expect(inspectGemini({ contents, generationConfig: { maxOutputTokens: 9000 } }, model, false)).to.be.instanceOf(Failure);
  });
});
