// The Claude Code CLI as a client, two releases (the pinned devDependency and an older one pinned in
// test/e2e/claude-code-older): their recorded requests replayed as sent, and the real CLIs (native
// binaries that need no network) run in print mode with only ANTHROPIC_BASE_URL and a key, by
// default and with each model shortcut, each answered and billed exactly; and gateway model
// discovery. One gateway for the file; independent runs go in parallel (each with a customer of
// its own, so each wallet moves by its own run alone).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { ModelEntry, TokenPrice } from '../../src/catalogue/types.ts';
import { ROOT_DIR } from '../../src/config.ts';
import { costOf, tokenLines } from '../../src/pricing/cost.ts';
import type { AnthropicSimulator } from '../../src/sandbox/anthropic/server.ts';
import { formatMicros, parseMicros } from '../../src/shared/money.ts';
import { CLAUDE_CODE_RELEASES, discoveredModels, runClaude, type ClaudeRelease, type ClaudeRun } from '../helpers/claude-code.ts';
import { sampleCatalogueWith } from '../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const FIXTURES = path.join(ROOT_DIR, 'test/fixtures/claude-code');
const MODEL = 'sandbox/claude-code';
/** Listed in /v1/models under a name Claude Code keeps from a gateway's list (it keeps claude* and anthropic* ids). */
const LISTED = 'claude-gateway-sandbox';
const CATALOGUE_MODEL: ModelEntry = {
  id: MODEL,
  aliases: [{ name: LISTED, listed: true }],
  group: 'messages',
  display_name: 'Gateway sandbox model',
  routes: [{ provider: 'sandbox-anthropic', upstream_model: 'claude-code-upstream' }],
  max_output_tokens: 128000,
  price: { input_per_mtok: '3.00', output_per_mtok: '15.00', cache_read_per_mtok: '0.30', cache_write_per_mtok: '3.75' },
};
const NOT_FORWARDED = new Set(['host', 'content-length', 'connection', 'x-api-key', 'authorization', 'accept-encoding']);
const [CURRENT, OLDER] = CLAUDE_CODE_RELEASES as [ClaudeRelease, ClaudeRelease];

interface Fixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

/** What each release sends for each choice (recorded: test/fixtures/claude-code), and the model that answers it. */
const RUNS: Array<{ release: ClaudeRelease; model?: string; billedAs: string }> = [
  { release: CURRENT, billedAs: 'sandbox/claude-opus' }, // claude-opus-5-5, an alias
  { release: CURRENT, model: 'opus', billedAs: 'sandbox/claude-opus' },
  { release: CURRENT, model: 'sonnet', billedAs: 'sandbox/claude-sonnet' }, // claude-sonnet-5-5 by pattern, 128000 capped to 64000
  { release: CURRENT, model: 'haiku', billedAs: 'sandbox/claude-haiku' }, // claude-haiku-5-5, capped to 64000
  { release: CURRENT, model: MODEL, billedAs: MODEL }, // a gateway id, as sent
  { release: OLDER, billedAs: 'sandbox/claude-opus' }, // claude-opus-4-8 by pattern, with the 1M beta
  { release: OLDER, model: 'opus', billedAs: 'sandbox/claude-opus' },
  { release: OLDER, model: 'sonnet', billedAs: 'sandbox/claude-sonnet' }, // claude-sonnet-5
  { release: OLDER, model: 'haiku', billedAs: 'sandbox/claude-haiku' }, // claude-haiku-4-5-20251001
];

/** Runs `tasks` at most `width` at a time (the machine has two cores; each run is a 380 MB binary). */
async function inParallel<T>(tasks: Array<() => Promise<T>>, width = 4): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
}

describe('Claude Code 2.1.330 and 2.1.197 as clients', function () {
  this.timeout(240_000);
  let gateway: TestGateway;
  let simulator: AnthropicSimulator;
  let key: string;

  before(async () => {
    gateway = await startTestGateway({ cataloguePath: sampleCatalogueWith({ models: [CATALOGUE_MODEL] }) });
    simulator = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    const customer = await gateway.customerWithKey();
    key = customer.key;
    await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '50.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  for (const release of CLAUDE_CODE_RELEASES) {
    const dir = path.join(FIXTURES, release.version);
    for (const name of fs.readdirSync(dir).filter((f) => f.startsWith('messages-') || f.startsWith('count-tokens-'))) {
      it(`replays ${release.version}/${name} as sent: the provider receives the same body and betas but the model (and a substitute's output cap)`, async () => {
        const fixture = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Fixture;
        const headers = Object.fromEntries(Object.entries(fixture.headers).filter(([h]) => !NOT_FORWARDED.has(h)));
        const before = simulator.requests.length;
        const response = await fetch(`${gateway.url}${fixture.path}`, {
          method: fixture.method,
          headers: { ...headers, 'x-api-key': key },
          body: JSON.stringify(fixture.body),
        });
        const text = await response.text();
        expect(response.status, text.slice(0, 300)).to.equal(200);
        const received = simulator.requests.slice(before);
        expect(received).to.have.length(1);
        const capped = response.headers.get('x-gateway-max-tokens-capped');
        const { model: _model, ...rest } = fixture.body!;
        expect(received[0]!.body).to.deep.equal({ ...rest, model: received[0]!.body.model, ...(capped ? { max_tokens: Number(capped) } : {}) });
        expect(received[0]!.headers['anthropic-beta']).to.equal(fixture.headers['anthropic-beta']);
        expect(received[0]!.headers['anthropic-version']).to.equal(fixture.headers['anthropic-version']);
        expect(received[0]!.headers['x-api-key']).to.equal('sandbox'); // the provider's credential, never the customer's
        if (fixture.body!.stream === true) {
          expect(response.headers.get('content-type')).to.include('text/event-stream');
          expect(text).to.include('event: message_start').and.to.include('event: message_stop');
          expect(text).to.match(/"model":"sandbox\/claude-(opus|sonnet|haiku)"/);
        } else {
          expect(JSON.parse(text)).to.satisfy((b: any) => typeof b.input_tokens === 'number' || /^sandbox\/claude-/.test(b.model));
        }
      });
    }
  }

  it('runs `claude -p "say hi"` with only ANTHROPIC_BASE_URL and a key, both releases, by default and with --model opus, sonnet and haiku: each answered and billed exactly', async () => {
    const customers = await Promise.all(
      RUNS.map(async () => {
        const customer = await gateway.customerWithKey();
        await gateway.admin('POST', `/admin/v1/customers/${customer.customerId}/credits`, { amount: '10.00', reference: `fund-${customer.customerId}` });
        return customer;
      }),
    );
    const runs = await inParallel(
      RUNS.map((r, i) => () => runClaude(r.release, { baseUrl: gateway.url, key: customers[i]!.key, ...(r.model ? { model: r.model } : {}) })),
    );
    for (const [i, r] of RUNS.entries()) {
      const run = runs[i]!;
      const what = `${r.release.version} --model ${r.model ?? '(default)'}`;
      expect(run.code, `${what}: ${run.stderr}${run.stdout}`).to.equal(0);
      const answer = JSON.parse(run.stdout) as { type: string; subtype: string; is_error: boolean; result: string };
      expect(answer, what).to.include({ type: 'result', subtype: 'success', is_error: false });
      expect(answer.result, what).to.include('Hello from the sandbox model');

      const { customerId } = customers[i]!;
      const logs = await gateway.requestLogs(`customer_id=${customerId}&endpoint=messages_create`, 1);
      expect(logs, `${what}: one messages request`).to.have.length(1);
      const [log] = logs;
      expect(log, what).to.include({ model: r.billedAs, status: 200, stream: true, usage_estimated: false });
      const wallet = await gateway.wallet(customerId);
      const moved = parseMicros('10.00') - parseMicros(wallet.available);
      expect(formatMicros(moved), what).to.equal(log.cost);
      const receipt = (await (
        await fetch(`${gateway.url}/v1/requests/${log.request_id}`, { headers: { authorization: `Bearer ${customers[i]!.key}` } })
      ).json()) as any;
      const price = gateway.services.catalogue.current().model(r.billedAs)!.price as TokenPrice;
      // Priced usage = what was charged + what free tokens paid (sonnet has a free allowance); no debt.
      expect(parseMicros(receipt.charge.total) + parseMicros(receipt.charge.free_amount), what).to.equal(costOf(tokenLines(price, receipt.usage.reported)));
      expect(receipt.charge.debt, what).to.equal('0.000000');
    }
    // The shortcuts of 2.1.330 ask 128000 output tokens of 64000-token models: sent capped, not refused.
    const capped = await gateway.requestLogs(`customer_id=${customers[2]!.customerId}&endpoint=messages_create`, 1);
    expect(capped[0]).to.include({ requested_model: 'claude-sonnet-5-5', max_tokens_requested: 128000, max_tokens_capped: 64000 });
    const older = await gateway.requestLogs(`customer_id=${customers[5]!.customerId}&endpoint=messages_create`, 1);
    expect(older[0]).to.include({ requested_model: 'claude-opus-4-8', max_tokens_capped: null });
    expect(older[0].session_id).to.match(/^[0-9a-f-]{36}$/);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  });

  it('answers gateway model discovery (CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY=1) in the Anthropic shape, and both releases keep what they understand of it', async () => {
    const { customerId, key: own } = await gateway.customerWithKey();
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: `fund-${customerId}` });
    const runs: ClaudeRun[] = await inParallel(
      CLAUDE_CODE_RELEASES.map((release) => () => runClaude(release, { baseUrl: gateway.url, key: own, discovery: true })),
    );
    for (const [i, release] of CLAUDE_CODE_RELEASES.entries()) expect(runs[i]!.code, `${release.version}: ${runs[i]!.stderr}${runs[i]!.stdout}`).to.equal(0);

    // Each asked GET /v1/models?limit=1000 with x-api-key and anthropic-version, and got the Anthropic list.
    const listed = await gateway.requestLogs(`customer_id=${customerId}&endpoint=models_list`, 2);
    expect(listed.map((r) => r.status)).to.deep.equal([200, 200]);
    const ours = (await (
      await fetch(`${gateway.url}/v1/models?limit=1000`, { headers: { 'x-api-key': own, 'anthropic-version': '2023-06-01' } })
    ).json()) as any;
    expect(ours.data.map((m: any) => m.id)).to.deep.equal(['sandbox/claude-opus', 'sandbox/claude-sonnet', 'sandbox/claude-haiku', MODEL, LISTED]);

    // What each kept (its local cache): the current release keeps ids containing claude, the older
    // one ids starting with it; both keep the listed name, with its display name.
    const [current, older] = runs.map((run) => discoveredModels(run));
    for (const kept of [current!, older!]) {
      expect(kept.baseUrl).to.equal(gateway.url);
      expect(kept.models.map((m) => m.id)).to.include(LISTED);
      expect(kept.models.find((m) => m.id === LISTED)!.display_name).to.equal('Gateway sandbox model');
      for (const model of kept.models) expect(ours.data.map((m: any) => m.id)).to.include(model.id);
    }
    expect(current!.models.map((m) => m.id)).to.include.members(['sandbox/claude-opus', 'sandbox/claude-sonnet', 'sandbox/claude-haiku', MODEL]);
  });
});
