import { expect } from 'chai';
import { estimateResponsesInput } from '../../../src/domain/responses/fields.ts';
import type { OpenAIResponsesSimulator } from '../../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesMicros } from '../../helpers/responses.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { parseSse } from '../../helpers/upstream-contract.ts';
import { formatMicros } from '../../../src/shared/money.ts';

/** A Codex-like turn: the whole transcript resent, about `tokens` input tokens, no max_output_tokens. */
function transcript(tokens: number): Record<string, unknown> {
  const turn = 'x'.repeat(4000); // about 1,000 tokens each
  const input = Array.from({ length: Math.ceil(tokens / 1000) }, (_, i) => ({
    type: 'message',
    role: i % 2 ? 'assistant' : 'user',
    content: [{ type: i % 2 ? 'output_text' : 'input_text', text: `${i} ${turn}` }],
  }));
  return { model: RESPONSES_MODEL, instructions: 'You are Codex.', input, stream: true, store: false, include: ['reasoning.encrypted_content'] };
}

for (const grants of ['true', 'false']) {
  describe(`responses: holds of hundreds of thousands of tokens (GRANTS=${grants})`, function () {
    this.timeout(120_000);
    let gateway: TestGateway;
    let primary: OpenAIResponsesSimulator;

    beforeEach(async () => {
      gateway = await startTestGateway({ env: { GRANTS: grants } });
      primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    });
    afterEach(async () => gateway.close());

    it('holds the input estimate plus the model output cap, serves four resent transcripts and bills each exactly', async () => {
      const { key, customerId } = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
      const sizes = [100_000, 200_000, 300_000, 400_000];
      for (const tokens of sizes) {
        const body = transcript(tokens);
        const response = await fetch(`${gateway.url}/v1/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).to.equal(200);
        const last = parseSse(await response.text()).at(-1)!;
        expect(last.event).to.equal('response.completed');
      }
      const usages = primary.exchanges.map((e) => e.billed!);
      expect(usages.map((u) => u.input_tokens)).to.satisfy((n: number[]) => n.every((t, i) => t > sizes[i]!));
      expect((await gateway.wallet(customerId)).debits).to.equal(responsesCost(...usages));
      expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    });

    it('refuses a transcript whose hold passes the balance before any upstream call, as insufficient_quota', async () => {
      const body = transcript(400_000);
      // The hold: the input estimate at the dearest input rate (cache writes, 1.50) plus 32,000 output
      // tokens at 10.00, at the priority premium (x2) the answer may report.
      const estimate = estimateResponsesInput(body);
      const hold = responsesMicros({ input_tokens: estimate, output_tokens: 32_000, input_tokens_details: { cache_write_tokens: estimate } }, 'priority');
      const { key, customerId } = await gateway.customerWithKey();
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: formatMicros(hold - 1n), reference: 'short' });
      const refused = await fetch(`${gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(refused.status).to.equal(402);
      expect(((await refused.json()) as any).error.code).to.equal('insufficient_quota');
      expect(primary.exchanges).to.have.length(0);
      await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '0.000001', reference: 'enough' });
      const ok = await fetch(`${gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(ok.status).to.equal(200);
      await ok.text();
      expect((await gateway.wallet(customerId)).debits).to.equal(responsesCost(primary.exchanges[0]!.billed!));
    });
  });
}
