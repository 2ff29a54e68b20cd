import { expect } from 'chai';
import type { ResolvedModel } from '../../../src/catalogue/store.ts';
import { Failure } from '../../../src/domain/failure.ts';
import { PassthroughError } from '../../../src/domain/passthrough/errors.ts';
import { parseFrame } from '../../../src/domain/passthrough/sse.ts';
import { checkResponses, inspectResponses } from '../../../src/domain/responses/fields.ts';
import { responsesBoundLines, responsesFailure } from '../../../src/domain/responses/protocol.ts';
import { responsesReader } from '../../../src/domain/responses/reader.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { costOf } from '../../../src/pricing/cost.ts';

const PRICE = {
  input_per_mtok: '1.00',
  output_per_mtok: '10.00',
  cache_read_per_mtok: '0.10',
  cache_write_per_mtok: '2.00',
  multipliers: { priority: '2', flex: '0.5' },
};
const reader = () => responsesReader({ inspected: { stream: true, inputTokens: 40, maxOutputTokens: 100 }, publicModel: 'v/resp', upstreamModel: 'up-resp' });
const frame = (data: Record<string, unknown>) => parseFrame(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
const response = (fields: Record<string, unknown>) => ({ id: 'resp_1', object: 'response', created_at: 5, model: 'up-resp', output: [], ...fields });
const usage = {
  input_tokens: 1000,
  input_tokens_details: { cached_tokens: 600, cache_write_tokens: 100 },
  output_tokens: 50,
  output_tokens_details: { reasoning_tokens: 20 },
  total_tokens: 1050,
};

describe('responses: reading usage while relaying', () => {
  it('bills the terminal event: uncached, cached, cache-write and output (reasoning inside) each at its rate', () => {
    const r = reader();
    const created = frame({ type: 'response.created', sequence_number: 0, response: response({ status: 'in_progress' }) });
    expect(r.frame(created)).to.equal(created.raw.replace('"model":"up-resp"', '"model":"v/resp"'));
    const delta = frame({ type: 'response.output_text.delta', sequence_number: 1, delta: 'Hello', item_id: 'msg_1' });
    expect(r.frame(delta)).to.equal(delta.raw);
    expect(r.responseId()).to.equal('resp_1');
    expect(r.complete()).to.equal(false);
    r.frame(frame({ type: 'response.incomplete', sequence_number: 2, response: response({ status: 'incomplete', usage }) }));
    expect(r.complete()).to.equal(true);
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(false);
    // 300 at 1.00, 100 at 2.00, 600 at 0.10, 50 at 10.00 per million.
    expect(costOf(bill.lines)).to.equal(300n + 200n + 60n + 500n);
    expect(bill.log).to.include({ input_tokens: 300, cache_read_tokens: 600, cache_write_tokens: 100, output_tokens: 50 });
    expect(r.contextTokens()).to.equal(1050);
  });

  it('applies the reported tier: priority (and fast) at its premium, flex at its discount', () => {
    for (const [tier, cost] of [
      ['priority', 2120n],
      ['fast', 2120n],
      ['flex', 530n],
      ['default', 1060n],
      ['scale', 1060n],
    ] as const) {
      const r = reader();
      r.frame(frame({ type: 'response.completed', sequence_number: 0, response: response({ status: 'completed', service_tier: tier, usage }) }));
      expect(costOf(r.bill(PRICE).lines), tier).to.equal(cost);
    }
  });

  it('estimates a stream with no terminal usage from the input estimate and the delivered deltas, and caps output at the bound', () => {
    const r = reader();
    r.frame(frame({ type: 'response.output_text.delta', sequence_number: 0, delta: 'x'.repeat(40) }));
    r.frame(frame({ type: 'response.function_call_arguments.delta', sequence_number: 1, delta: 'y'.repeat(40) }));
    r.frame(frame({ type: 'response.reasoning_summary_text.delta', sequence_number: 2, delta: 'z'.repeat(4000) }));
    const bill = r.bill(PRICE);
    expect(bill.estimated).to.equal(true);
    expect(bill.log).to.include({ input_tokens: 40, output_tokens: 100 });
    expect(bill.log.usage_detail).to.deep.include({ output_tokens_reported: 1020 });
  });

  it('closes a cut stream with response.failed after the last sequence number, naming the response', () => {
    const r = reader();
    r.frame(frame({ type: 'response.created', sequence_number: 0, response: response({ status: 'in_progress' }) }));
    r.frame(frame({ type: 'response.output_text.delta', sequence_number: 7, delta: 'Hi' }));
    const text = r.streamError!('api_error', 'cut');
    const closing = parseFrame(text);
    expect(closing.event).to.equal('response.failed');
    expect(JSON.parse(closing.data)).to.deep.include({ type: 'response.failed', sequence_number: 8 });
    expect(JSON.parse(closing.data).response).to.deep.include({
      id: 'resp_1',
      created_at: 5,
      status: 'failed',
      model: 'v/resp',
      error: { code: 'server_error', message: 'cut' },
    });
  });

  it('reads a JSON answer: usage, output items for the estimate, the public model', () => {
    const r = reader();
    const text = JSON.stringify(response({ status: 'completed', usage }));
    expect(r.json(text)).to.equal(text.replace('"model":"up-resp"', '"model":"v/resp"'));
    expect(r.complete()).to.equal(true);
    expect(r.bill(PRICE).estimated).to.equal(false);
    const noUsage = reader();
    noUsage.json(
      JSON.stringify(response({ status: 'completed', output: [{ type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'x'.repeat(80) }] }] })),
    );
    expect(noUsage.bill(PRICE).log).to.include({ input_tokens: 40, output_tokens: 20 });
  });
});

describe('responses: the fields the gateway reads, and the words Codex acts on', () => {
  const model = { max_output_tokens: 32_000 } as ResolvedModel;

  it('checks stream, background, max_output_tokens and previous_response_id only', () => {
    expect(checkResponses({ model: 'm', input: [{ type: 'anything', new_field: 1 }], store: false, unknown: { deep: true } })).to.equal(undefined);
    for (const [body, param] of [
      [{ stream: 'yes' }, 'stream'],
      [{ background: 1 }, 'background'],
      [{ max_output_tokens: 1.5 }, 'max_output_tokens'],
      [{ previous_response_id: '' }, 'previous_response_id'],
    ] as const)
      expect((checkResponses(body as Record<string, unknown>) as Failure).details.param).to.equal(param);
  });

  it('holds the catalogue output cap without max_output_tokens, plus a chained context, at the dearest rate and premium', () => {
    const inspected = inspectResponses({ input: 'x'.repeat(400) }, model, 500) as { inputTokens: number; maxOutputTokens: number };
    expect(inspected.maxOutputTokens).to.equal(32_000);
    expect(inspected.inputTokens).to.be.greaterThan(600);
    expect((inspectResponses({ max_output_tokens: 32_001 }, model) as Failure).details.param).to.equal('max_output_tokens');
    const lines = responsesBoundLines(PRICE, { stream: false, inputTokens: 1000, maxOutputTokens: 100 });
    expect(costOf(lines)).to.equal((1000n * 2n + 100n * 10n) * 2n);
  });

  it('says insufficient_quota for balance and spend limits, rate_limit_exceeded with "try again in Ns" for limits', () => {
    expect(responsesFailure(new Failure(PassthroughError.InsufficientBalance, 'low')).code).to.equal('insufficient_quota');
    expect(responsesFailure(new Failure(LedgerError.KeySpendLimitExceeded, 'spent')).code).to.equal('insufficient_quota');
    const upstream = responsesFailure(
      new Failure(PassthroughError.UpstreamError, 'Slow down.', { upstream: { status: 429, type: 'requests' }, headers: { 'retry-after': '7' } }),
    );
    expect(upstream).to.include({ code: 'rate_limit_exceeded', message: 'Slow down. Please try again in 7s.' });
    const already = responsesFailure(
      new Failure(PassthroughError.UpstreamError, 'Please try again in 1s.', { upstream: { status: 429, type: 'x' }, headers: { 'retry-after': '1' } }),
    );
    expect(already.message).to.equal('Please try again in 1s.');
    expect(responsesFailure(new Failure(PassthroughError.UpstreamError, 'bad', { upstream: { status: 400, type: 'x' } })).code).to.equal('upstream_error');
  });
});
