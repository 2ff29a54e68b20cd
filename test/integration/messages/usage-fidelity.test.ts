import { expect } from 'chai';
import type { ModelEntry } from '../../../src/catalogue/types.ts';
import { sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// A model priced in every dimension Anthropic bills: tokens, 5-minute and 1-hour cache writes,
// cache reads, server tool requests, and premiums for fast mode and the priority tier.
const PRICED: ModelEntry = {
  id: 'sandbox/claude-priced',
  group: 'messages',
  routes: [{ provider: 'sandbox-anthropic', upstream_model: 'claude-priced-upstream' }],
  max_output_tokens: 8000,
  price: {
    input_per_mtok: '3.00',
    output_per_mtok: '15.00',
    cache_read_per_mtok: '0.30',
    cache_write_per_mtok: '3.75',
    cache_write_1h_per_mtok: '6.00',
    web_search_per_1k_requests: '10.00',
    web_fetch_per_1k_requests: '2.00',
    multipliers: { fast: '6', priority: '1.5' },
  },
};

describe('messages: billing follows every usage component Anthropic reports', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith({ models: [PRICED] }) });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '100.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  /** Sends one message and returns what it cost, from the wallet, and its log row. */
  async function charged(directives: string, extra: Record<string, unknown> = {}, stream = true): Promise<{ cost: string; log: any; input: number }> {
    const before = BigInt(Math.round(Number((await gateway.wallet(customerId)).available) * 1e6));
    // The prompt is fixed so the simulator's input count is known: "hi [[sim ...]]" -> tokens by its length.
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sandbox/claude-priced',
        max_tokens: 100,
        stream,
        messages: [{ role: 'user', content: `hi [[sim ${directives}]]` }],
        ...extra,
      }),
    });
    expect(response.status).to.equal(200);
    await response.text();
    const after = BigInt(Math.round(Number((await gateway.wallet(customerId)).available) * 1e6));
    const log = await gateway.requestLog(response.headers.get('request-id')!);
    return { cost: (before - after).toString(), log, input: Number(log.input_tokens) };
  }

  /** Micro-units of a usage at the PRICED rates, rounded up once. */
  const micros = (parts: Array<[number, number]>, multiplier = 1) => {
    const exact = parts.reduce((sum, [units, perMillion]) => sum + units * perMillion, 0) * multiplier;
    return String(Math.ceil(Math.round(exact * 1e6) / 1e6));
  };

  it('keeps the last cumulative message_delta values, never their sum, and keeps message_start values a delta leaves null', async () => {
    const { cost, log, input } = await charged('message_deltas=3 usage_nulls cache_read=50');
    expect(log).to.include({ output_tokens: 8, cache_read_tokens: 50, usage_estimated: false });
    expect(cost).to.equal(
      micros([
        [input, 3],
        [50, 0.3],
        [8, 15],
      ]),
    );
  });

  it('prices 1-hour cache writes apart from 5-minute ones, and logs the split', async () => {
    const { cost, log, input } = await charged('cache_write=1000 cache_write_1h=400', {}, false);
    expect(log).to.include({ cache_write_tokens: 1000 });
    expect(log.usage_detail).to.include({ cache_write_1h_tokens: 400 });
    expect(cost).to.equal(
      micros([
        [input, 3],
        [600, 3.75],
        [400, 6],
        [8, 15],
      ]),
    );
  });

  it('bills server tool requests per request, as reported at the end of the stream', async () => {
    const { cost, log, input } = await charged('web_search=3 web_fetch=2');
    expect(log.usage_detail).to.include({ web_search_requests: 3, web_fetch_requests: 2 });
    expect(cost).to.equal(
      micros([
        [input, 3],
        [8, 15],
        [3, 10_000],
        [2, 2_000],
      ]),
    );
  });

  it('applies the fast-mode premium when the request asks for it, and the priority premium when the tier says so', async () => {
    const fast = await charged('', { speed: 'fast' });
    expect(fast.log.usage_detail).to.include({ multiplier: 'fast x6' });
    expect(fast.cost).to.equal(
      micros(
        [
          [fast.input, 3],
          [8, 15],
        ],
        6,
      ),
    );
    const priority = await charged('tier=priority');
    expect(priority.log.usage_detail).to.include({ multiplier: 'priority x1.5', service_tier: 'priority' });
    expect(priority.cost).to.equal(
      micros(
        [
          [priority.input, 3],
          [8, 15],
        ],
        1.5,
      ),
    );
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });
});
