import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TokenPrice } from '../../../src/catalogue/types.ts';
import { requestText } from '../../../src/sandbox/anthropic/directives.ts';
import type { AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import { simulatedTokens } from '../../../src/sandbox/anthropic/responses.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { changeCatalogue, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { RESPONSES_MODEL, responsesCost } from '../../helpers/responses.ts';

// Long-context tiers (issue 33, item 4) through the official SDKs: above a threshold of reported
// input (cache reads and writes included, strictly above) every token line of the request is
// priced at the tier, premiums on top; the hold is sized at the tier the estimate can reach, a
// dry_run quote says that hold, the receipt and the export name the tier, and the price list
// shows it. sandbox/claude-opus: above 200,000 input tokens 8.00 / 10.00 (writes) / 0.40 (reads) /
// 30.00 instead of 4.00 / 5.00 / 0.20 / 20.00. sandbox/responses-model: above 272,000, 2.50 and
// 15.00 instead of 1.25 and 10.00, cache prices following the input step.
const OPUS = 'sandbox/claude-opus';
const CHAT = 'sandbox/chat-model';

/** Micro-units of priced lines [units, micro-units per million tokens], rounded up once. */
const priced = (...lines: Array<[number, number]>): bigint => {
  const numerator = lines.reduce((sum, [units, perMillion]) => sum + BigInt(units) * BigInt(perMillion), 0n);
  return (numerator + 999_999n) / 1_000_000n;
};
const micros = (decimal: string) => BigInt(decimal.replace('.', ''));
/** About `tokens` tokens of prompt as the simulators count them (four characters a token). */
const filler = (tokens: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil((tokens * 4) / 27)).slice(0, tokens * 4);

describe(`long-context tiers, with the official SDKs (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let customer: { customerId: string; keyId: string; key: string };

  before(async () => {
    // The sample's chat stand-in has no long context; here it gets a tier above 100,000 (input and cache x2, output x1.5).
    const cataloguePath = sampleCatalogueWith({
      model: {
        [CHAT]: {
          price: {
            input_per_mtok: '0.50',
            output_per_mtok: '1.50',
            cache_read_per_mtok: '0.25',
            tiers: [{ above_input_tokens: 100000, input_per_mtok: '1.00', output_per_mtok: '2.25' }],
          },
        },
      },
    });
    gateway = await startTestGateway({ cataloguePath });
  });
  beforeEach(async () => {
    customer = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '50.00', reference: `fund-${customer.customerId}` });
  });
  afterEach(async () => expect(await gateway.services.ledger.reconcile()).to.deep.equal([]));
  after(async () => gateway?.close());

  const simulator = () => gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
  const anthropic = () => new Anthropic({ apiKey: customer.key, baseURL: gateway.url, maxRetries: 0 });
  const openai = () => new OpenAI({ apiKey: customer.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const debits = async () => micros((await gateway.wallet(customer.customerId)).debits);
  const receipt = async (requestId: string) => {
    await gateway.requestLog(requestId); // written once the charge is durable
    const response = await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${customer.key}` } });
    expect(response.status).to.equal(200);
    return (await response.json()) as any;
  };

  it('messages: a quote says the hold, the request holds it, and every line is charged at the tier above 200,000 input tokens', async () => {
    const body = {
      model: OPUS,
      max_tokens: 4_000,
      messages: [{ role: 'user' as const, content: `${filler(230_000)} [[sim cache_read=1000 cache_write=500]]` }],
    };
    const quote = (await anthropic().messages.create({ ...body, dry_run: true } as never)) as any;
    expect(quote).to.deep.include({ object: 'token.quote', model: OPUS, price_version: 1, max_output_tokens: 4_000, free_units: 0, free_unit: null });
    expect(quote.price_tier).to.deep.include({ index: 0, above_input_tokens: 200_000 });
    // The bound: every estimated input token at the tier's dearest input rate (writes, 10.00), all output at 30.00.
    expect(micros(quote.hold)).to.equal(priced([quote.input_tokens, 10_000_000], [4_000, 30_000_000]));
    expect(await debits()).to.equal(0n); // a quote holds and charges nothing
    expect((await gateway.wallet(customer.customerId)).reserved).to.equal('0.000000');
    expect(simulator().requests.filter((r) => r.body.model === 'claude-opus-5-5')).to.have.length(0); // nor sends anything

    const before = await debits();
    const message = await anthropic().messages.create(body);
    const { input_tokens: input, output_tokens: output, cache_read_input_tokens: read, cache_creation_input_tokens: written } = message.usage;
    expect(input + read! + written!).to.be.above(200_000);
    const charged = priced([input, 8_000_000], [written!, 10_000_000], [read!, 400_000], [output, 30_000_000]);
    expect((await debits()) - before).to.equal(charged);

    const r = await receipt(message._request_id!);
    expect(r.usage.price_tier).to.deep.equal({ index: 0, above_input_tokens: 200_000, input_tokens: input + read! + written! });
    expect(r.usage.billed).to.not.have.property('price_tier');
    expect(r.price.unit_prices.tiers).to.deep.equal([
      {
        above_input_tokens: 200_000,
        input_per_mtok: '8.000000',
        output_per_mtok: '30.000000',
        cache_read_per_mtok: '0.400000',
        cache_write_per_mtok: '10.000000',
      },
    ]);
    expect(r.hold.amount).to.equal(quote.hold);
    expect(micros(r.charge.total)).to.equal(charged);
  });

  it('messages: input exactly at the threshold is the base price, one token above is the tier, cache reads counted', async () => {
    const prompt = 'Hello [[sim cache_read=CACHED]]';
    const input = simulatedTokens(requestText({ messages: [{ role: 'user', content: prompt }] }));
    const at = async (judged: number) => {
      const before = await debits();
      const message = await anthropic().messages.create({
        model: OPUS,
        max_tokens: 5_000, // a hold that covers the tier's charge (its estimate is small: the base prices)
        messages: [{ role: 'user', content: prompt.replace('CACHED', String(judged - input)) }],
      });
      expect(message.usage.input_tokens + message.usage.cache_read_input_tokens!).to.equal(judged);
      return { message, charged: (await debits()) - before, receipt: await receipt(message._request_id!) };
    };
    const base = await at(200_000);
    const { input_tokens: i0, output_tokens: o0, cache_read_input_tokens: c0 } = base.message.usage;
    expect(base.charged).to.equal(priced([i0, 4_000_000], [c0!, 200_000], [o0, 20_000_000]));
    expect(base.receipt.usage.price_tier).to.equal(null);
    const above = await at(200_001);
    const { input_tokens: i1, output_tokens: o1, cache_read_input_tokens: c1 } = above.message.usage;
    expect(above.charged).to.equal(priced([i1, 8_000_000], [c1!, 400_000], [o1, 30_000_000]));
    expect(above.receipt.usage.price_tier).to.deep.equal({ index: 0, above_input_tokens: 200_000, input_tokens: 200_001 });

    // The export names the tier of each charge.
    const exported = await fetch(`${gateway.url}/v1/usage/export?format=ndjson`, { headers: { authorization: `Bearer ${customer.key}` } });
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const lineOf = (id: string) => lines.find((l) => l.id === id);
    expect(lineOf(base.message._request_id!)).to.include({ tier_above_input_tokens: null });
    expect(lineOf(above.message._request_id!)).to.include({ tier_above_input_tokens: 200_000, charged: `0.${String(above.charged).padStart(6, '0')}` });
  });

  it('chat: a prompt above the tier is charged at it, cached tokens at the derived cache price; the quote is the hold', async () => {
    const body = { model: CHAT, max_completion_tokens: 100, messages: [{ role: 'user' as const, content: `${filler(110_000)} [[sim cached=5000]]` }] };
    const quote = (await openai().chat.completions.create({ ...body, dry_run: true } as never)) as any;
    expect(quote).to.deep.include({ object: 'token.quote', model: CHAT, max_output_tokens: 100 });
    expect(quote.price_tier).to.deep.include({ index: 0, above_input_tokens: 100_000 });
    const before = await debits();
    const completion = await openai().chat.completions.create(body);
    const usage = completion.usage!;
    const cached = usage.prompt_tokens_details!.cached_tokens!;
    expect(usage.prompt_tokens).to.be.above(100_000);
    // 1.00 uncached, 0.50 cached (0.25 x the input step of 2), 2.25 output.
    const charged = priced([usage.prompt_tokens - cached, 1_000_000], [cached, 500_000], [usage.completion_tokens, 2_250_000]);
    expect((await debits()) - before).to.equal(charged);
    const r = await receipt(completion._request_id!);
    expect(r.usage.price_tier).to.deep.equal({ index: 0, above_input_tokens: 100_000, input_tokens: usage.prompt_tokens });
    expect(r.hold.amount).to.equal(quote.hold);
  });

  it('responses: the tier above 272,000 and the priority premium combine on every line', async () => {
    const body = { model: RESPONSES_MODEL, input: `${filler(280_000)} [[sim cached=2000 tier=priority]]` };
    const quote = (await openai().responses.create({ ...body, dry_run: true } as never)) as any;
    expect(quote).to.deep.include({ object: 'token.quote', model: RESPONSES_MODEL, max_output_tokens: 32_000 });
    expect(quote.price_tier).to.deep.include({ index: 0, above_input_tokens: 272_000 });
    // The bound: input at the dearest tier rate (cache writes 3.00, following the input step), output 15.00, priority x2.
    expect(micros(quote.hold)).to.equal(priced([quote.input_tokens, 6_000_000], [32_000, 30_000_000]));
    const before = await debits();
    const response = await openai().responses.create(body);
    expect(response.usage!.input_tokens).to.be.above(272_000);
    expect(response.service_tier).to.equal('priority');
    expect(micros(responsesCost([response.usage!, 'priority']))).to.equal(
      priced([response.usage!.input_tokens - 2_000, 2_500_000 * 2], [2_000, 250_000 * 2], [response.usage!.output_tokens, 15_000_000 * 2]),
    );
    expect((await debits()) - before).to.equal(micros(responsesCost([response.usage!, 'priority'])));
    const r = await receipt(response._request_id!);
    expect(r.usage.price_tier).to.deep.include({ index: 0, above_input_tokens: 272_000 });
    expect(r.usage.billed).to.include({ multiplier: 'priority x2' });
    expect(r.hold.amount).to.equal(quote.hold);
  });

  it('lists the tiers in /v1/models/pricing with the prices they charge, derived cache prices included', async () => {
    const pricing = (await (await fetch(`${gateway.url}/v1/models/pricing`, { headers: { authorization: `Bearer ${customer.key}` } })).json()) as any;
    const tiersOf = (model: string) => pricing.data.find((m: any) => m.model === model).price.tiers;
    expect(tiersOf(OPUS)).to.deep.equal([
      {
        above_input_tokens: 200_000,
        input_per_mtok: '8.000000',
        output_per_mtok: '30.000000',
        cache_read_per_mtok: '0.400000',
        cache_write_per_mtok: '10.000000',
        cache_write_1h_per_mtok: null,
      },
    ]);
    expect(tiersOf(RESPONSES_MODEL)).to.deep.equal([
      {
        above_input_tokens: 272_000,
        input_per_mtok: '2.500000',
        output_per_mtok: '15.000000',
        cache_read_per_mtok: '0.250000',
        cache_write_per_mtok: '3.000000',
        cache_write_1h_per_mtok: null,
      },
    ]);
    expect(tiersOf('sandbox/claude-haiku')).to.deep.equal([]);
  });

  it('a tier change makes a new price version; a request in flight keeps the version it started under', async () => {
    const body = {
      model: OPUS,
      max_tokens: 2_000,
      messages: [{ role: 'user' as const, content: `${filler(210_000)} [[sim deltas=12 gap_ms=100]]` }],
    };
    const before = await debits();
    const stream = anthropic().messages.stream(body);
    await new Promise((resolve) => stream.once('text', resolve));
    const reload = await gateway.rewriteCatalogue((text) =>
      changeCatalogue(text, { model: { [OPUS]: (m) => void ((m.price as TokenPrice).tiers![0]!.output_per_mtok = '36.00') } }),
    );
    expect(reload.body.price_versions_created).to.deep.equal([{ model: OPUS, price_version: 2 }]);
    const message = await stream.finalMessage();
    const inFlight = (await debits()) - before;
    expect(inFlight).to.equal(priced([message.usage.input_tokens, 8_000_000], [message.usage.output_tokens, 30_000_000]));
    const r = await receipt(stream.request_id!);
    expect(r.price.version).to.equal(1);
    expect(r.usage.price_tier).to.deep.include({ above_input_tokens: 200_000 });

    const after = await anthropic().messages.create({ ...body, messages: [{ role: 'user', content: filler(210_000) }] });
    expect((await receipt(after._request_id!)).price.version).to.equal(2);
    const latest = (await (await fetch(`${gateway.url}/v1/models/pricing`)).json()) as any;
    expect(latest.data.find((m: any) => m.model === OPUS)).to.deep.include({ price_version: 2 });
    expect(latest.data.find((m: any) => m.model === OPUS).price.tiers[0].output_per_mtok).to.equal('36.000000');
  });
});
