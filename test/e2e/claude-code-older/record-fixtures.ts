// Records the requests a Claude Code release sends to ANTHROPIC_BASE_URL, as fixtures for
// test/e2e/claude-code.test.ts (test/fixtures/claude-code/README.md says what each one is):
//
//   npx tsx test/e2e/claude-code-older/record-fixtures.ts [version]   # default 2.1.197
//
// Claude Code talks straight to the sandbox Anthropic simulator here (no gateway), from a
// throwaway home and an empty environment. Machine-specific strings are replaced by placeholders.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicSimulator, type RecordedRequest } from '../../../src/sandbox/anthropic/server.ts';
import { CLAUDE_CODE_RELEASES, runClaude, type ClaudeRunOptions } from '../../helpers/claude-code.ts';

const version = process.argv[2] ?? '2.1.197';
const release = CLAUDE_CODE_RELEASES.find((r) => r.version === version);
if (!release) throw new Error(`unknown release ${version}: one of ${CLAUDE_CODE_RELEASES.map((r) => r.version).join(', ')}`);
const OUT = path.resolve(import.meta.dirname, '../../fixtures/claude-code', version);

function redact(request: RecordedRequest, method: string, places: Record<string, string>): Record<string, unknown> {
  const body = method === 'GET' ? null : request.body;
  let text = JSON.stringify({ method, path: request.url, headers: request.headers, body });
  for (const [value, placeholder] of Object.entries(places)) text = text.replaceAll(value, placeholder);
  const fixture = JSON.parse(text) as { headers: Record<string, string> };
  for (const secret of ['x-api-key', 'authorization']) if (fixture.headers[secret]) fixture.headers[secret] = '<redacted>';
  return fixture;
}

async function record(name: string, options: Omit<ClaudeRunOptions, 'baseUrl' | 'key'>, pick: (requests: RecordedRequest[]) => RecordedRequest | undefined) {
  const simulator = await startAnthropicSimulator();
  const run = await runClaude(release!, { baseUrl: simulator.baseUrl, key: 'sk-gw-recording', ...options });
  await simulator.close();
  if (run.code !== 0) throw new Error(`${name}: claude exited ${run.code}\n${run.stderr}${run.stdout}`);
  const picked = pick(simulator.requests);
  if (!picked) throw new Error(`${name}: no such request among ${simulator.requests.map((r) => r.path).join(', ')}`);
  const port = new URL(simulator.baseUrl).port;
  const places = { [run.home]: '<HOME>', [`127.0.0.1:${port}`]: '127.0.0.1:<PORT>', [`Linux ${os.release()}`]: 'Linux <KERNEL_VERSION>' };
  const method = picked.path === '/v1/models' ? 'GET' : 'POST';
  fs.writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify(redact(picked, method, places), null, 2)}\n`);
  console.log(`${name}.json: ${simulator.requests.map((r) => r.path).join(', ')} (${run.ms} ms)`);
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const message = (requests: RecordedRequest[]) => requests.find((r) => r.path === '/v1/messages');
  await record('messages-print', {}, message);
  for (const shortcut of ['opus', 'sonnet', 'haiku']) await record(`messages-print-${shortcut}`, { model: shortcut }, message);
  await record('models-list', { discovery: true }, (requests) => requests.find((r) => r.path === '/v1/models'));
}

void main();
