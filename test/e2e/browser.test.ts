// The official SDKs in a real browser: Debian's Chromium, headless, runs a page served from another
// origin that calls the gateway with `dangerouslyAllowBrowser`, as a web app or a playground does.
// The browser enforces CORS itself: a page of an origin CORS_ORIGINS does not list is stopped
// before its request leaves, and is charged nothing.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import esbuild from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { ROOT_DIR } from '../../src/config.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { PageReport } from './browser/page.ts';

/** A web app's origin: one page that loads the bundled script. */
async function servePage(script: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><script src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('browser: the official SDKs in Chromium, on a page of another origin', function () {
  this.timeout(120_000);
  let browser: Browser;
  let gateway: TestGateway;
  let app: Awaited<ReturnType<typeof servePage>>;
  let stranger: Awaited<ReturnType<typeof servePage>>;
  let key: string;
  let customerId: string;

  before(async () => {
    // Installed from Debian's packages when missing (CI installs it before the suite).
    const executablePath = execFileSync('bash', [path.join(ROOT_DIR, 'scripts/chromium-up.sh')], { encoding: 'utf8' }).trim();
    const bundle = await esbuild.build({
      entryPoints: [path.join(ROOT_DIR, 'test/e2e/browser/page.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      logLevel: 'silent',
      keepNames: true, // the page reports errors by their class names
    });
    const script = bundle.outputFiles[0]!.text;
    [app, stranger] = await Promise.all([servePage(script), servePage(script)]);
    gateway = await startTestGateway({ env: { CORS_ORIGINS: app.origin } });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '1.00', reference: 'browser' });
    browser = await chromium.launch({ executablePath });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    await Promise.all([app?.close(), stranger?.close()]);
  });

  async function runOn(origin: string, only: 'messages' | 'all'): Promise<PageReport> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      await page.waitForFunction('typeof runSdkCalls === "function"');
      return (await page.evaluate(`runSdkCalls(${JSON.stringify(gateway.url)}, ${JSON.stringify(key)}, ${JSON.stringify(only)})`)) as PageReport;
    } finally {
      await page.close();
    }
  }

  it('messages (JSON and streamed), models and a streamed chat completion answer the page, which reads their request ids; each is billed', async () => {
    const before = await gateway.wallet(customerId);
    const report = await runOn(app.origin, 'all');
    expect(report.error).to.equal(undefined);
    expect(report.message!.text).to.be.a('string').and.not.equal('');
    expect(report.streamed!.text).to.be.a('string').and.not.equal('');
    expect(report.streamed!.outputTokens).to.be.greaterThan(0);
    expect(report.models).to.include.members(['sandbox/claude-haiku', 'sandbox/chat-model']);
    expect(report.chat!.text).to.not.equal('');
    expect(report.chat!.totalTokens).to.be.greaterThan(0);

    // The request-id headers are exposed to the page, and each names a billed request.
    const ids = [report.message!.requestId, report.streamed!.requestId, report.chat!.requestId];
    for (const id of ids) expect(id).to.match(/^req_/);
    let billed = 0;
    for (const id of ids) {
      const row = await gateway.requestLog(id!);
      expect(row, id!).to.include({ status: 200, customer_id: customerId });
      expect(Number(row.cost)).to.be.greaterThan(0);
      billed += Math.round(Number(row.cost) * 1e6);
    }
    const after = await gateway.wallet(customerId);
    expect(Math.round(Number(before.available) * 1e6) - Math.round(Number(after.available) * 1e6)).to.equal(billed);
    expect(after.reserved).to.equal('0.000000');
  });

  it('stops a page of an origin CORS_ORIGINS does not list in the browser, before its request is sent; nothing is charged', async () => {
    const before = await gateway.wallet(customerId);
    const logged = (await gateway.requestLogs(`customer_id=${customerId}`, 0)).length;
    const report = await runOn(stranger.origin, 'messages');
    expect(report.message).to.equal(undefined);
    expect(report.error).to.deep.include({ name: 'APIConnectionError' });
    expect(await gateway.wallet(customerId)).to.deep.equal(before);
    expect(await gateway.requestLogs(`customer_id=${customerId}`, 0)).to.have.length(logged);
  });
});
