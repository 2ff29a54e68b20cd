// Records the requests the pinned Gemini CLI sends to a Gemini API, as fixtures for
// test/e2e/gemini-cli.test.ts (test/fixtures/gemini-cli/README.md says what each one is):
//
//   npx tsx test/e2e/gemini-cli/record-fixtures.ts   # writes test/fixtures/gemini-cli/<version>/*.json
//
// The CLI talks straight to the sandbox Gemini simulator here (no gateway), from a throwaway HOME
// and an empty environment. Machine-specific strings are replaced by placeholders.
import fs from 'node:fs';
import path from 'node:path';
import { startGeminiSimulator, type RecordedGeminiExchange } from '../../../src/sandbox/gemini/server.ts';
import { GEMINI_CLI_VERSION, runGemini } from './run.ts';

const OUT = path.resolve(import.meta.dirname, '../../fixtures/gemini-cli', GEMINI_CLI_VERSION);
const NAMES = ['router-generate-content', 'turn-stream-generate-content'];

function redact(exchange: RecordedGeminiExchange, places: Record<string, string>): Record<string, unknown> {
  let text = JSON.stringify({ method: exchange.method, path: exchange.path, headers: exchange.headers, body: exchange.body ?? null });
  for (const [value, placeholder] of Object.entries(places)) text = text.replaceAll(value, placeholder);
  const fixture = JSON.parse(text) as { headers: Record<string, string> };
  fixture.headers['x-goog-api-key'] = '<redacted>';
  return fixture;
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const simulator = await startGeminiSimulator();
  const run = await runGemini({ baseUrl: simulator.baseUrl, key: 'sk-gw-recording', prompt: 'say hi' });
  await simulator.close();
  if (run.code !== 0) throw new Error(`gemini exited ${run.code}\n${run.stderr}`);
  const places = {
    [run.dirs.project]: '<WORKDIR>',
    [run.dirs.home]: '<HOME>',
    [run.dirs.tmp]: '<TMPDIR>',
    [new URL(simulator.baseUrl).host]: '127.0.0.1:<PORT>',
    [new Date().toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' })]: '<DATE>',
  };
  simulator.exchanges.slice(0, NAMES.length).forEach((exchange, i) => {
    fs.writeFileSync(path.join(OUT, `${NAMES[i]}.json`), `${JSON.stringify(redact(exchange, places), null, 2)}\n`);
  });
  console.log(simulator.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`).join('\n'));
}

void main();
