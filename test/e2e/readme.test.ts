// The README's TypeScript snippets, run as a reader would run them: each block is written to a
// module beside node_modules, pointed at a live gateway with a funded key, and executed with the
// official SDKs. A snippet that stops working fails here.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const run = promisify(execFile);
const README = fs.readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
const snippets = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README: the SDK snippets run against the gateway', function () {
  this.timeout(90_000);
  let gateway: TestGateway;
  let key: string;
  let customerId: string;
  let dir: string;

  before(async () => {
    gateway = await startTestGateway({ env: { VIDEO_POLLER: 'true', VIDEO_POLL_INTERVAL_MS: '100' } });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '10.00', reference: 'readme' });
    dir = fs.mkdtempSync(path.join(ROOT_DIR, 'node_modules', '.readme-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await gateway.close();
  });

  async function runSnippet(source: string): Promise<string> {
    expect(source).to.include("'http://127.0.0.1:8080");
    expect(source).to.include("'sk-gw-…'");
    const file = path.join(dir, `snippet-${snippets.indexOf(source)}.mts`);
    fs.writeFileSync(
      file,
      source
        .replaceAll("'http://127.0.0.1:8080", `'${gateway.url}`)
        .replaceAll("'sk-gw-…'", `'${key}'`)
        .replaceAll("'cat.mp4'", `'${path.join(dir, 'cat.mp4')}'`),
    );
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: dir, timeout: 60_000 });
    return stdout;
  }

  it('has the snippets this test knows (Anthropic SDK, OpenAI SDK)', () => {
    expect(snippets).to.have.length(2);
    expect(snippets[0]).to.include("from '@anthropic-ai/sdk'");
    expect(snippets[1]).to.include("from 'openai'");
  });

  it('the Anthropic SDK snippet: a message and a stream, each with its usage, each settled', async () => {
    const stdout = await runSnippet(snippets[0]!);
    expect(stdout).to.match(/type: 'text'/);
    expect(stdout).to.match(/input_tokens: \d+/);
    await gateway.settled();
    const logs = await gateway.requestLogs(`customer_id=${customerId}&model=sandbox/claude-sonnet`, 2);
    expect(logs.map((l) => [l.status, l.stream, l.usage_estimated]).sort()).to.deep.equal([
      [200, false, false],
      [200, true, false],
    ]);
    // sandbox/claude-sonnet has a free monthly allowance: both settle from it, in units.
    const journal = (await gateway.admin('GET', `/admin/v1/customers/${customerId}/ledger?limit=50`)).body.data as any[];
    const settles = journal.filter((e) => e.kind === 'settle');
    expect(settles).to.have.length(2);
    for (const settle of settles) expect(Number(settle.free_units)).to.be.greaterThan(0);
  });

  it('the OpenAI SDK snippet: a chat completion, a response, and a video created, polled, settled and downloaded', async () => {
    const stdout = await runSnippet(snippets[1]!);
    expect(stdout).to.match(/prompt_tokens: \d+/);
    expect(stdout).to.include('Hello from the sandbox model.');
    const [response] = await gateway.requestLogs(`customer_id=${customerId}&model=sandbox/responses-model`);
    expect(response).to.include({ endpoint: 'responses_create', status: 200, usage_estimated: false });
    expect(stdout).to.match(new RegExp(`input_tokens: ${response.input_tokens}`));
    const video = fs.readFileSync(path.join(dir, 'cat.mp4'));
    expect(video.length).to.be.greaterThan(0);
    expect(video.subarray(4, 8).toString('latin1')).to.equal('ftyp'); // an MP4's first box
    const tasks = (await gateway.admin('GET', `/admin/v1/video-tasks?customer_id=${customerId}`)).body.data as any[];
    expect(tasks.map((t) => [t.status, t.billed_amount, t.billed_seconds, t.billed_tier])).to.deep.equal([['completed', '0.400000', 4, '720p']]); // 0.10 a second
  });
});
