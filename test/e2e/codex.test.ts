// The Codex CLI as a client: its recorded requests (HTTP, and WebSocket sessions) replayed through
// the gateway, and the real CLI (pinned in test/e2e/codex, installed with `npm ci --prefix
// test/e2e/codex`) running `codex exec` with the README's configuration against the gateway and the
// sandbox Responses provider, over HTTP and over WebSocket (supports_websockets = true).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import type { OpenAIResponsesSimulator } from '../../src/sandbox/openai-responses/server.ts';
import { RESPONSES_MODEL, responsesCost, responsesExchangeProblems } from '../helpers/responses.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseSse, validateWebSocketMessage } from '../helpers/upstream-contract.ts';
import { openSocket } from '../helpers/websocket.ts';
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

  for (const name of ['websocket-exec.json', 'websocket-function-call-output.json']) {
    it(`replays ${name} over a WebSocket: the warm-up answered free, each turn sent with the context it continues, billed exactly`, async () => {
      const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Fixture & { messages: Array<Record<string, unknown>> };
      const headers = Object.fromEntries(
        Object.entries(recorded.headers).filter(([h]) => !NOT_REPLAYED.has(h) && !h.startsWith('sec-websocket') && h !== 'upgrade'),
      );
      expect(recorded.messages.flatMap((m) => validateWebSocketMessage('client', m))).to.deep.equal([]);
      const [before, paid] = [primary.exchanges.length, await debits()];
      if (name.includes('function-call')) primary.next({ call: { name: 'exec_command', arguments: '{"cmd":"echo hello-from-tool"}' } });
      const socket = await openSocket(gateway.url, key, headers);
      let previous: { id: string; items: unknown[] } | undefined;
      for (const message of recorded.messages) {
        const sent: Record<string, unknown> = {
          ...message,
          model: RESPONSES_MODEL,
          ...(message.previous_response_id ? { previous_response_id: previous!.id } : {}),
        };
        const events = await socket.turn(sent);
        const last = events.at(-1)!;
        expect(last.type, JSON.stringify(last)).to.equal('response.completed');
        const { type: _type, generate, ...body } = sent;
        const input = [...(message.previous_response_id ? previous!.items : []), ...(body.input as unknown[])];
        if (generate === false) expect(last.response.output).to.deep.equal([]);
        else {
          const upstream = primary.exchanges.at(-1)!.body!;
          const { previous_response_id: _chained, ...rest } = body;
          expect(upstream).to.deep.equal({ ...rest, model: 'sandbox-responses', input });
        }
        previous = { id: last.response.id, items: [...input, ...last.response.output] };
      }
      socket.ws.close();
      const turns = recorded.messages.filter((m) => m.generate !== false).length;
      expect(primary.exchanges.length - before).to.equal(turns);
      expect(await debits()).to.equal(sum(paid, responsesCost(...billedSince(before))));
    });
  }

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

  it('runs `codex exec` over WebSocket (supports_websockets = true): one upgrade, no POST, billed exactly per turn', async () => {
    const [before, paid, logged] = [primary.exchanges.length, await debits(), gateway.logs.length];
    const run = await runCodex({ baseUrl: `${gateway.url}/v1`, key, prompt: 'say hi', model: 'gpt-5.5', websockets: true });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Hello from the sandbox model.');
    expect(run.stderr).to.not.include('Falling back');
    const lines = gateway.logs.slice(logged).filter((l) => l.msg === 'request' && l.path === '/v1/responses');
    expect(lines.filter((l) => l.operation === 'responses_websocket').map((l) => l.status)).to.deep.equal([101]);
    expect(lines.filter((l) => l.method === 'POST')).to.have.length(0);
    const billed = billedSince(before);
    expect(billed).to.have.length(1);
    expect(run.stderr.replace(/,/g, '')).to.include(`tokens used\n${billed[0]!.total_tokens}`);
    expect(await debits()).to.equal(sum(paid, responsesCost(...billed)));
    const [turn] = await gateway.requestLogs(`customer_id=${customerId}&endpoint=responses_create`);
    expect(turn).to.include({ model: RESPONSES_MODEL, status: 200, stream: true, usage_estimated: false, cost: responsesCost(...billed) });
    console.log(`      codex exec over WebSocket took ${run.ms} ms`);
  });

  it('runs a tool turn over WebSocket: the second turn continues the first on the socket (store: false), both billed', async () => {
    const [before, paid] = [primary.exchanges.length, await debits()];
    primary.next({ call: { name: 'exec_command', arguments: '{"cmd":"echo hello-from-tool"}' } });
    const run = await runCodex({ baseUrl: `${gateway.url}/v1`, key, prompt: 'run echo hello-from-tool', model: 'gpt-5.5', websockets: true });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.include('hello-from-tool');
    const sent = primary.exchanges.slice(before);
    expect(sent).to.have.length(2);
    expect(sent[1]!.body).to.not.have.property('previous_response_id'); // the socket's context, sent in full
    const input = sent[1]!.body!.input as Array<Record<string, unknown>>;
    expect(input.slice(0, (sent[0]!.body!.input as unknown[]).length)).to.deep.equal(sent[0]!.body!.input);
    expect(input.find((i) => i.type === 'function_call')).to.include({ name: 'exec_command' });
    expect(input.at(-1)).to.include({ type: 'function_call_output' });
    expect(await debits()).to.equal(sum(paid, responsesCost(...billedSince(before))));
  });
});
