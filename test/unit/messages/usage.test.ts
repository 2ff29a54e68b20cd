import { expect } from 'chai';
import { AnthropicUsage } from '../../../src/domain/messages/usage.ts';
import { costOf } from '../../../src/pricing/cost.ts';

const PRICE = { input_per_mtok: '3.00', output_per_mtok: '15.00', cache_read_per_mtok: '0.30', cache_write_per_mtok: '3.75' };

describe('Anthropic usage', () => {
  it('keeps the last cumulative values of message_delta, never their sum', () => {
    const usage = new AnthropicUsage(10, 1000, false);
    usage.observe({ input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 7 }, false);
    for (const output of [5, 10, 15]) usage.observe({ output_tokens: output, input_tokens: null, cache_read_input_tokens: null }, true);
    const bill = usage.bill(PRICE);
    expect(bill.log).to.include({ input_tokens: 25, output_tokens: 15, cache_read_tokens: 7 });
    expect(bill.estimated).to.equal(false);
  });

  it('estimates output from what was delivered when no final count came, never below what was counted', () => {
    const usage = new AnthropicUsage(10, 1000, false);
    usage.observe({ input_tokens: 25, output_tokens: 1 }, false);
    usage.deliveredDelta({ type: 'text_delta', text: 'a'.repeat(40) });
    usage.deliveredDelta({ type: 'input_json_delta', partial_json: '{"k":' });
    usage.deliveredDelta({ type: 'future_delta', payload: 'b'.repeat(8), signature: 'ignored' });
    const bill = usage.bill(PRICE);
    expect(bill.estimated).to.equal(true);
    expect(bill.log.output_tokens).to.equal(10 + 2 + 2);
    expect(bill.log.input_tokens).to.equal(25);
  });

  it('uses the request estimate for input when the provider reported none', () => {
    const usage = new AnthropicUsage(321, 1000, false);
    usage.deliveredBlocks([{ type: 'text', text: 'abcd' }]);
    expect(usage.bill(PRICE).log).to.include({ input_tokens: 321 });
  });

  it('never bills output beyond max_tokens, and says what was reported', () => {
    const usage = new AnthropicUsage(10, 50, false);
    usage.observe({ input_tokens: 10, output_tokens: 9_000_000 }, true);
    const bill = usage.bill(PRICE);
    expect(bill.log.output_tokens).to.equal(50);
    expect(bill.log.usage_detail).to.include({ output_tokens_reported: 9_000_000 });
    expect(costOf(bill.lines)).to.equal(10n * 3n + 50n * 15n);
  });

  it('ignores counts that are not whole non-negative numbers', () => {
    const usage = new AnthropicUsage(10, 100, false);
    usage.observe({ input_tokens: -5, output_tokens: 1.5 }, true);
    usage.observe('not usage', true);
    expect(usage.bill(PRICE).log).to.include({ input_tokens: 10, output_tokens: 0 });
  });

  it('prices 1-hour cache writes, server tools and premiums only when the catalogue does', () => {
    const usage = new AnthropicUsage(0, 100, true);
    usage.observe(
      {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 100,
        cache_creation: { ephemeral_1h_input_tokens: 40 },
        server_tool_use: { web_search_requests: 2 },
      },
      true,
    );
    expect(costOf(usage.bill(PRICE).lines)).to.equal(375n); // 100 writes at 3.75: no 1-hour, tool or fast prices set
    const priced = { ...PRICE, cache_write_1h_per_mtok: '6.00', web_search_per_1k_requests: '10.00', multipliers: { fast: '2' } };
    // (60 x 3.75 + 40 x 6.00) x 2 + 2 requests x 10,000 micro-units
    expect(costOf(usage.bill(priced).lines)).to.equal(930n + 20_000n);
  });
});
