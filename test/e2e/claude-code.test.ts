// The Claude Code CLI as a client: its recorded requests replayed byte for byte, and the real CLI
// (the pinned devDependency, a native binary that needs no network) run in print mode.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import type { AnthropicSimulator } from '../../src/sandbox/anthropic/server.ts';
import { SAMPLE_CATALOGUE, startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const FIXTURES = path.join(ROOT_DIR, 'test/fixtures/claude-code/2.1.330');
const MODEL = 'sandbox/claude-code';
const UPSTREAM = 'claude-code-upstream';
const CATALOGUE_MODEL = `  - id: ${MODEL}
    group: messages
    routes: [{provider: sandbox-anthropic, upstream_model: ${UPSTREAM}}]
    max_output_tokens: 128000
    price: {input_per_mtok: "3.00", output_per_mtok: "15.00", cache_read_per_mtok: "0.30", cache_write_per_mtok: "3.75"}
`;
const NOT_FORWARDED = new Set(['host', 'content-length', 'connection', 'x-api-key', 'authorization', 'accept-encoding']);

interface Fixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

describe('Claude Code 2.1.330 as a client', function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let simulator: AnthropicSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-')), 'catalogue.yaml');
    fs.writeFileSync(file, `${fs.readFileSync(SAMPLE_CATALOGUE, 'utf8')}${CATALOGUE_MODEL}`);
    gateway = await startTestGateway({ cataloguePath: file });
    simulator = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '50.00', reference: 'fund' });
  });
  after(async () => gateway.close());

  const fixtures = fs.readdirSync(FIXTURES).filter((f) => f.startsWith('messages-') || f.startsWith('count-tokens-'));

  for (const name of fixtures) {
    it(`replays ${name}: the provider receives the same body but the model, the same betas, and answers the client`, async () => {
      const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Fixture;
      const headers = Object.fromEntries(Object.entries(fixture.headers).filter(([h]) => !NOT_FORWARDED.has(h)));
      const before = simulator.requests.length;
      const response = await fetch(`${gateway.url}${fixture.path}`, {
        method: fixture.method,
        headers: { ...headers, 'x-api-key': key },
        body: JSON.stringify({ ...fixture.body, model: MODEL }),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).to.equal(200);
      const received = simulator.requests.slice(before);
      expect(received).to.have.length(1);
      expect(received[0]!.body).to.deep.equal({ ...fixture.body, model: UPSTREAM });
      expect(received[0]!.headers['anthropic-beta']).to.equal(fixture.headers['anthropic-beta']);
      expect(received[0]!.headers['anthropic-version']).to.equal(fixture.headers['anthropic-version']);
      expect(received[0]!.headers['x-api-key']).to.equal('sandbox'); // the provider's credential, never the customer's
      if (fixture.body.stream === true) {
        expect(response.headers.get('content-type')).to.include('text/event-stream');
        expect(text).to.include('event: message_start').and.to.include('event: message_stop');
        expect(text).to.include(`"model":"${MODEL}"`);
      } else {
        expect(JSON.parse(text)).to.satisfy((b: any) => typeof b.input_tokens === 'number' || b.model === MODEL);
      }
    });
  }

  /** `claude -p "say hi"` with the README's two variables (and a throwaway home, offline); `model` adds `--model`. */
  async function claudeSaysHi(model: string | undefined, billedAs: string): Promise<void> {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-home-'));
    const before = (await gateway.wallet(customerId)).available;
    const logged = `customer_id=${customerId}&endpoint=messages_create`;
    const earlier = (await gateway.requestLogs(logged, 0)).length; // the replays above logged for this customer too
    const result = await run(
      path.join(ROOT_DIR, 'node_modules/.bin/claude'),
      ['-p', 'say hi', '--output-format', 'json', ...(model ? ['--model', model] : [])],
      {
        PATH: '/usr/bin:/bin',
        HOME: home,
        CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
        TMPDIR: home,
        CLAUDE_CODE_TMPDIR: home,
        XDG_RUNTIME_DIR: home,
        ANTHROPIC_BASE_URL: gateway.url,
        ANTHROPIC_API_KEY: key,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
        CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK: '1',
      },
    );
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    const answer = JSON.parse(result.stdout) as { type: string; subtype: string; is_error: boolean; result: string };
    expect(answer).to.include({ type: 'result', subtype: 'success', is_error: false });
    expect(answer.result).to.include('Hello from the sandbox model');

    // A log row is written once the charge is durable: wait for this run's row, not the newest earlier one.
    const logs = await gateway.requestLogs(logged, earlier + 1);
    expect(logs, 'one messages request by claude -p').to.have.length(earlier + 1);
    const [log] = logs;
    expect(log).to.include({ model: billedAs, status: 200, stream: true, usage_estimated: false });
    const after = (await gateway.wallet(customerId)).available;
    expect((Number(before) - Number(after)).toFixed(6)).to.equal(log.cost);
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
  }

  it('runs `claude -p` through the gateway: a successful answer, billed exactly once', async () => {
    await claudeSaysHi(MODEL, MODEL);
  });

  it("runs the README's one-liner as written: no --model, Claude Code's default id answered through the sample catalogue's alias", async () => {
    await claudeSaysHi(undefined, 'sandbox/claude-opus');
  });
});

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: env.HOME });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
