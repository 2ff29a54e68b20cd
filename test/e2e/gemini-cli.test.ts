// Gemini CLI as a client: its recorded requests replayed through the gateway, and the real CLI
// (pinned in test/e2e/gemini-cli, installed by scripts/gemini-cli-up.sh) running `gemini -p` with
// only GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY pointing at the gateway and the sandbox Gemini
// provider: it answers, and the wallet moves by exactly the priced usageMetadata of every call it made.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import type { GeminiSimulator, RecordedGeminiExchange } from '../../src/sandbox/gemini/server.ts';
import { formatMicros } from '../../src/shared/money.ts';
import { flashMicros, geminiMicros } from '../helpers/gemini.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseSse } from '../helpers/upstream-contract.ts';
import { GEMINI_CLI_VERSION, runGemini } from './gemini-cli/run.ts';

const FIXTURES = path.join(ROOT_DIR, 'test/fixtures/gemini-cli', GEMINI_CLI_VERSION);
/** Hop-by-hop and per-connection headers, and the credential, which a replay sets itself. */
const NOT_REPLAYED = new Set(['host', 'content-length', 'connection', 'x-goog-api-key', 'accept-encoding']);

interface Fixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Fixture;

/** What an exchange cost: the sandbox Pro model's prices, or the Flash model's (every flash alias is served as gemini-3.5-flash). */
const costOf = (exchanges: RecordedGeminiExchange[]): string =>
  formatMicros(exchanges.reduce((sum, e) => sum + (e.path.includes('/gemini-3.5-flash:') ? flashMicros(e.billed!) : geminiMicros(e.billed!)), 0n));

describe(`Gemini CLI ${GEMINI_CLI_VERSION} as a client`, function () {
  this.timeout(180_000);
  let gateway: TestGateway;
  let studio: GeminiSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    studio = gateway.simulators.get('sandbox-gemini') as GeminiSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '20.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  const debits = async () => (await gateway.wallet(customerId)).debits as string;
  const plus = (a: string, b: string) => (Number(a) + Number(b)).toFixed(6);
  const billedSince = (from: number) => studio.exchanges.slice(from).filter((e) => e.billed);

  for (const name of ['router-generate-content.json', 'turn-stream-generate-content.json']) {
    it(`replays ${name}: the provider receives the CLI's body unchanged with its own key, billed exactly`, async () => {
      const recorded = fixture(name);
      const headers = Object.fromEntries(Object.entries(recorded.headers).filter(([h]) => !NOT_REPLAYED.has(h)));
      const [before, paid] = [studio.exchanges.length, await debits()];
      const response = await fetch(`${gateway.url}${recorded.path}`, {
        method: recorded.method,
        headers: { ...headers, 'x-goog-api-key': key },
        body: JSON.stringify(recorded.body),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).to.equal(200);
      if (recorded.path.includes('alt=sse')) expect(JSON.parse(parseSse(text).at(-1)!.data).candidates[0].finishReason).to.equal('STOP');
      const received = studio.exchanges.slice(before);
      expect(received).to.have.length(1);
      expect(received[0]!.body).to.deep.equal(recorded.body);
      expect(received[0]!.headers['x-goog-api-key']).to.equal('sandbox'); // the provider's credential, never the customer's
      expect(received[0]!.headers['x-gemini-api-privileged-user-id']).to.equal(undefined); // client headers stay at the gateway
      expect(await debits()).to.equal(plus(paid, costOf(received)));
    });
  }

  it('runs `gemini -p` with only GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY: the answer printed, every call billed exactly', async () => {
    const [before, paid] = [studio.exchanges.length, await debits()];
    const run = await runGemini({ baseUrl: gateway.url, key, prompt: 'say hi' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Hello from the sandbox model.');
    const billed = billedSince(before);
    expect(billed.length).to.be.at.least(2); // the router's score, then the turn
    expect(billed.some((e) => e.path.includes(':streamGenerateContent?alt=sse'))).to.equal(true);
    expect(await debits()).to.equal(plus(paid, costOf(billed)));
    const logs = await gateway.requestLogs(`customer_id=${customerId}`, billed.length);
    expect(logs.slice(0, billed.length).every((l: any) => l.status === 200 && l.usage_estimated === false)).to.equal(true);
  });

  it('reports a balance too low clearly and stops (403 PERMISSION_DENIED, no retries)', async () => {
    const poor = await gateway.customerWithKey();
    const logged = gateway.logs.length;
    const run = await runGemini({ baseUrl: gateway.url, key: poor.key, prompt: 'say hi' });
    expect(run.code).not.to.equal(0);
    expect(run.stderr + run.stdout).to.include('Your balance is too low for this request');
    const refusals = gateway.logs.slice(logged).filter((l) => l.status === 403 && String(l.path).startsWith('/v1beta/'));
    expect(refusals.length, 'one refusal per call the CLI made, none retried').to.be.at.most(2);
  });
});
