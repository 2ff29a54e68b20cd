// The Codex CLI as a client: its recorded requests replayed through the gateway, and the real CLI
// (pinned in test/e2e/codex, installed with `npm ci --prefix test/e2e/codex`) running `codex exec`
// with the README's configuration against the gateway and the sandbox Responses provider.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import type { OpenAIResponsesSimulator } from '../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems } from '../helpers/responses.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseSse } from '../helpers/upstream-contract.ts';
import { CODEX_VERSION, runCodex } from './codex/run.ts';

const FIXTURES = path.join(ROOT_DIR, 'test/fixtures/codex', CODEX_VERSION);
/** Hop-by-hop and per-connection headers, and the credential, which a replay sets itself. */
const NOT_REPLAYED = new Set(['host', 'content-length', 'connection', 'authorization', 'accept-encoding']);

interface Fixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Fixture;

describe(`Codex CLI ${CODEX_VERSION} as a client`, function () {
  this.timeout(180_000);
  let gateway: TestGateway;
  let primary: OpenAIResponsesSimulator;
  let backup: OpenAIResponsesSimulator;
  let key: string;
  let customerId: string;

  before(async () => {
    gateway = await startTestGateway();
    primary = gateway.simulators.get('sandbox-openai-responses') as OpenAIResponsesSimulator;
    backup = gateway.simulators.get('sandbox-openai-responses-backup') as OpenAIResponsesSimulator;
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '50.00', reference: 'fund' });
  });
  after(async () => {
    expect(responsesExchangeProblems(primary, backup)).to.deep.equal([]);
    await gateway.close();
  });

  const billedSince = (from: number) =>
    primary.exchanges
      .slice(from)
      .filter((e) => e.billed)
      .map((e) => e.billed!);
  const debits = async () => (await gateway.wallet(customerId)).debits as string;
  const sum = (a: string, b: string) => (Number(a) + Number(b)).toFixed(6);

  for (const name of ['responses-exec.json', 'responses-function-call-output.json']) {
    it(`replays ${name}: the provider receives Codex's bytes but the model, and the stream ends with response.completed`, async () => {
      const recorded = fixture(name);
      const headers = Object.fromEntries(Object.entries(recorded.headers).filter(([h]) => !NOT_REPLAYED.has(h)));
      const [before, paid] = [primary.exchanges.length, await debits()];
      const response = await fetch(`${gateway.url}${recorded.path}`, {
        method: recorded.method,
        headers: { ...headers, authorization: `Bearer ${key}` },
        body: JSON.stringify({ ...recorded.body, model: RESPONSES_MODEL }),
      });
      const text = await response.text();
      expect(response.status, text.slice(0, 300)).to.equal(200);
      expect(response.headers.get('content-type')).to.include('text/event-stream');
      expect(parseSse(text).at(-1)!.event).to.equal('response.completed');
      const received = primary.exchanges.slice(before);
      expect(received).to.have.length(1);
      expect(received[0]!.body).to.deep.equal({ ...recorded.body, model: 'sandbox-responses' });
      expect(received[0]!.headers.authorization).to.equal('Bearer sandbox'); // the provider's credential, never the customer's
      expect(received[0]!.headers['x-codex-turn-metadata']).to.equal(undefined); // client headers stay at the gateway
      expect(await debits()).to.equal(sum(paid, responsesCost(...billedSince(before))));
    });
  }

  it('answers the recorded WebSocket upgrade with 426 and closes the connection', async () => {
    const recorded = fixture('websocket-upgrade.json');
    const { hostname, port } = new URL(gateway.url);
    const head = Object.entries({ ...recorded.headers, host: `${hostname}:${port}`, authorization: `Bearer ${key}` }).map(([h, v]) => `${h}: ${v}`);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write(`${recorded.method} ${recorded.path} HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).to.match(/^HTTP\/1\.1 426 /);
    expect(answer).to.include('"code":"websocket_not_supported"');
  });

  it('runs `codex exec` with the README configuration: the answer printed, billed exactly as the provider counted it', async () => {
    const [before, paid] = [primary.exchanges.length, await debits()];
    const run = await runCodex({ baseUrl: `${gateway.url}/v1`, key, prompt: 'say hi', model: 'gpt-5.5' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Hello from the sandbox model.');
    const billed = billedSince(before);
    expect(billed).to.have.length(1);
    expect(run.stderr.replace(/,/g, '')).to.include(`tokens used\n${billed[0]!.total_tokens}`);
    expect(await debits()).to.equal(sum(paid, responsesCost(...billed)));
    const [log] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=responses_create`);
    expect(log).to.include({ model: RESPONSES_MODEL, status: 200, stream: true, usage_estimated: false, cost: responsesCost(...billed) });
  });

  it('runs a tool turn: the function call executed by Codex, its output sent back, both requests billed', async () => {
    const [before, paid] = [primary.exchanges.length, await debits()];
    primary.next({ call: { name: 'exec_command', arguments: '{"cmd":"echo hello-from-tool"}' } });
    const run = await runCodex({ baseUrl: `${gateway.url}/v1`, key, prompt: 'run echo hello-from-tool', model: 'gpt-5.5' });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.include('hello-from-tool');
    const sent = primary.exchanges.slice(before);
    expect(sent).to.have.length(2);
    const output = (sent[1]!.body!.input as Array<Record<string, unknown>>).find((i) => i.type === 'function_call_output')!;
    expect(output.output).to.include('hello-from-tool');
    expect(await debits()).to.equal(sum(paid, responsesCost(...billedSince(before))));
  });

  it('falls back to HTTP after one refused WebSocket attempt when the provider is marked supports_websockets', async () => {
    const [before, paid, logged] = [primary.exchanges.length, await debits(), gateway.logs.length];
    const run = await runCodex({ baseUrl: `${gateway.url}/v1`, key, prompt: 'say hi', model: 'gpt-5.5', websockets: true });
    expect(run.code, run.stderr).to.equal(0);
    const refused = gateway.logs.slice(logged).filter((l) => l.path === '/v1/responses' && l.status === 426);
    expect(refused, 'one upgrade attempt, then HTTP').to.have.length(1);
    expect(run.stdout).to.include('Hello from the sandbox model.');
    expect(await debits()).to.equal(sum(paid, responsesCost(...billedSince(before))));
    console.log(`      codex exec with the WebSocket refused took ${run.ms} ms`);
  });
});
