import { expect } from 'chai';
import { chatReader, type ChatReaderOptions } from '../../../src/domain/chat/reader.ts';
import { parseFrame } from '../../../src/domain/passthrough/sse.ts';
import { costOf } from '../../../src/pricing/cost.ts';

const PRICE = { input_per_mtok: '0.50', output_per_mtok: '1.50', cache_read_per_mtok: '0.25' };
const reader = (options: Partial<ChatReaderOptions> = {}) =>
  chatReader({
    inspected: { stream: true, inputTokens: 40, maxOutputTokens: 100 },
    clientWantsUsage: false,
    choices: 1,
    publicModel: 'v/chat',
    upstreamModel: 'up-chat',
    ...options,
  });
const frame = (data: unknown) => parseFrame(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
const chunk = (fields: Record<string, unknown>) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'up-chat', ...fields });
const usage = {
  prompt_tokens: 1000,
  completion_tokens: 50,
  total_tokens: 1050,
  prompt_tokens_details: { cached_tokens: 600 },
  completion_tokens_details: { reasoning_tokens: 20 },
};

describe('chat: reading usage while relaying', () => {
  it('hides the usage the gateway asked for from a client that did not, and bills by it', () => {
    const r = reader();
    const first = r.frame(frame(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }], usage: null })));
    expect(first).to.equal(
      `data: ${JSON.stringify(chunk({ model: 'v/chat', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] }))}\n\n`,
    );
    expect(r.frame(frame(chunk({ choices: [], usage })))).to.equal('');
    expect(r.complete()).to.equal(false);
    expect(r.frame(frame('[DONE]'))).to.equal('data: [DONE]\n\n');
    expect(r.complete()).to.equal(true);
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(false);
    // 400 uncached at 0.50, 600 cached at 0.25, 50 output (reasoning inside) at 1.50 per million.
    expect(costOf(bill.lines)).to.equal(200n + 150n + 75n);
    expect(bill.log).to.deep.include({
      input_tokens: 400,
      cache_read_tokens: 600,
      output_tokens: 50,
      usage_detail: { prompt_tokens: 1000, reasoning_tokens: 20 },
    });
  });

  it('passes the usage chunk and the null usages to a client that asked, rewriting only model', () => {
    const r = reader({ clientWantsUsage: true });
    const text = JSON.stringify(chunk({ choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }], usage: null }));
    expect(r.frame(frame(text))).to.equal(`data: ${text.replace('"up-chat"', '"v/chat"')}\n\n`);
    const last = JSON.stringify(chunk({ choices: [], usage }));
    expect(r.frame(frame(last))).to.equal(`data: ${last.replace('"up-chat"', '"v/chat"')}\n\n`);
  });

  it('relays frames it cannot read untouched, and an error frame marks the answer errored', () => {
    const r = reader();
    for (const raw of [': keep-alive\n\n', 'data: not json\n\n', 'event: something\ndata: {"x":1}\r\n\r\n']) expect(r.frame(parseFrame(raw))).to.equal(raw);
    expect(r.errored()).to.equal(false);
    const error = 'data: {"error":{"message":"boom","type":"server_error","param":null,"code":null}}\n\n';
    expect(r.frame(parseFrame(error))).to.equal(error);
    expect(r.errored()).to.equal(true);
  });

  it('estimates from what was delivered when no usage came, caps output at the bound, and says so', () => {
    const r = reader({ choices: 2 });
    r.frame(
      frame(
        chunk({
          choices: [
            { index: 0, delta: { content: 'a'.repeat(400) }, finish_reason: null },
            {
              index: 1,
              delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get', arguments: 'b'.repeat(396) } }] },
              finish_reason: null,
            },
          ],
        }),
      ),
    );
    expect(r.outputTokens()).to.equal(200);
    r.frame(frame(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })));
    expect(r.complete()).to.equal(false); // one of two choices finished
    r.frame(frame(chunk({ choices: [{ index: 1, delta: {}, finish_reason: 'tool_calls' }] })));
    expect(r.complete()).to.equal(true); // some providers end without [DONE]
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(true);
    expect(bill.log).to.deep.include({ input_tokens: 40, output_tokens: 100, usage_detail: { output_tokens_reported: 200 } });
  });

  it('reads a JSON answer: usage, the priority tier, model rewritten, unknown fields kept', () => {
    const r = reader({ inspected: { stream: false, inputTokens: 40, maxOutputTokens: 100 } });
    const answer = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'up-chat',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage,
      service_tier: 'priority',
      brand_new: [1],
    };
    expect(r.json(JSON.stringify(answer))).to.equal(JSON.stringify({ ...answer, model: 'v/chat' }));
    const bill = r.bill({ ...PRICE, multipliers: { priority: '2' } });
    expect(costOf(bill.lines)).to.equal(2n * (200n + 150n + 75n));
    expect(bill.log.usage_detail).to.deep.include({ service_tier: 'priority', multiplier: 'priority x2' });
    expect(reader().json('[1]')).to.equal(undefined);
    expect(reader().json('{"choices":')).to.equal(undefined);
  });
});
