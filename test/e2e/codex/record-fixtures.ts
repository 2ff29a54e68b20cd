// Records the requests the pinned Codex CLI sends to a Responses endpoint, as fixtures for
// test/e2e/codex.test.ts (test/fixtures/codex/README.md says what each one is):
//
//   npx tsx test/e2e/codex/record-fixtures.ts [name ...]   # writes test/fixtures/codex/<version>/*.json (or only those named)
//
// Codex talks straight to the sandbox Responses simulator here (no gateway), from a throwaway
// CODEX_HOME and an empty environment. Machine-specific strings are replaced by placeholders.
// The sandbox speaks no WebSocket, so a WebSocket session is recorded by a proxy in front of a test
// gateway (ws-recorder.ts): the upgrade's headers and each message Codex sent.
import fs from 'node:fs';
import path from 'node:path';
import { startOpenAIResponsesSimulator, type RecordedResponsesExchange } from '../../../src/sandbox/openai-responses/server.ts';
import { closeTestDatabase } from '../../helpers/db.ts';
import { startTestGateway } from '../../helpers/gateway.ts';
import { CODEX_VERSION, runCodex, type CodexRun } from './run.ts';
import { startWebSocketRecorder } from './ws-recorder.ts';

const OUT = path.resolve(import.meta.dirname, '../../fixtures/codex', CODEX_VERSION);

/** A fixture without this machine's paths and port, and without the credential. */
function redact(recorded: { headers: unknown }, run: CodexRun, baseUrl: string): Record<string, unknown> {
  const places = {
    [run.dirs.project]: '<WORKDIR>',
    [run.dirs.codexHome]: '<CODEX_HOME>',
    [run.dirs.tmp]: '<TMPDIR>',
    [`127.0.0.1:${new URL(baseUrl).port}`]: '127.0.0.1:<PORT>',
  };
  let text = JSON.stringify(recorded);
  for (const [value, placeholder] of Object.entries(places)) text = text.replaceAll(value, placeholder);
  const fixture = JSON.parse(text) as { headers: Record<string, string> };
  fixture.headers.authorization = 'Bearer <redacted>';
  return fixture;
}

async function record(
  name: string,
  prompt: string,
  options: { websockets?: boolean; call?: { name: string; arguments: string } },
  pick: (e: RecordedResponsesExchange[]) => RecordedResponsesExchange,
) {
  const simulator = await startOpenAIResponsesSimulator();
  if (options.call) simulator.next({ call: options.call });
  const run = await runCodex({ baseUrl: simulator.baseUrl, key: 'sk-gw-recording', prompt, model: 'gpt-5.5', websockets: options.websockets });
  await simulator.close();
  if (run.code !== 0) throw new Error(`${name}: codex exited ${run.code}\n${run.stderr}`);
  const exchange = pick(simulator.exchanges);
  const recorded = { method: exchange.method, path: `/v1${exchange.path}`, headers: exchange.headers, body: exchange.body ?? null };
  fs.writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify(redact(recorded, run, simulator.baseUrl), null, 2)}\n`);
  console.log(`${name}.json: ${simulator.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`).join(', ')}`);
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const only = process.argv.slice(2);
  const wanted = (name: string) => only.length === 0 || only.includes(name);
  if (wanted('responses-exec')) await record('responses-exec', 'say hi', {}, (e) => e.find((x) => x.method === 'POST')!);
  const call = { name: 'exec_command', arguments: '{"cmd":"echo hello-from-tool"}' };
  if (wanted('responses-function-call-output'))
    await record('responses-function-call-output', 'run echo hello-from-tool', { call }, (e) => e.filter((x) => x.method === 'POST')[1]!);
  if (wanted('websocket-exec')) await recordWebSocket('websocket-exec', 'say hi');
  if (wanted('websocket-function-call-output'))
    await recordWebSocket('websocket-function-call-output', 'run echo hello-from-tool', { name: 'exec_command', arguments: '{"cmd":"echo hello-from-tool"}' });
  await closeTestDatabase();
}

/** A `codex exec` over WebSocket (supports_websockets = true), through a test gateway. */
async function recordWebSocket(name: string, prompt: string, call?: { name: string; arguments: string }) {
  const gateway = await startTestGateway();
  const { key, customerId } = await gateway.customerWithKey();
  await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fund' });
  if (call) (gateway.simulators.get('sandbox-openai-responses') as Awaited<ReturnType<typeof startOpenAIResponsesSimulator>>).next({ call });
  const recorder = await startWebSocketRecorder(gateway.url, key);
  const run = await runCodex({ baseUrl: recorder.baseUrl, key: 'sk-gw-recording', prompt, model: 'gpt-5.5', websockets: true });
  await recorder.close();
  await gateway.close();
  if (run.code !== 0 || recorder.recorded.length !== 1)
    throw new Error(`${name}: codex exited ${run.code}, ${recorder.recorded.length} sockets\n${run.stderr}`);
  const [socket] = recorder.recorded;
  const recorded = { method: 'GET', path: socket!.path, headers: socket!.headers, messages: socket!.messages };
  fs.writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify(redact(recorded, run, recorder.baseUrl), null, 2)}\n`);
  console.log(`${name}.json: ${socket!.messages.map((m) => (m.generate === false ? 'warm-up' : 'turn')).join(', ')}`);
}

void main();
