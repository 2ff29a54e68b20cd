import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { serveConsole } from '../../../../src/http/steps/console.ts';
import { startSteps } from './harness.ts';

/** A built console in a temporary folder: index.html, one hashed asset, and a dotfile that must never be served. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="./assets/console-AB12.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'console-AB12.js'), 'export {};');
  fs.writeFileSync(path.join(dir, '.env'), 'SECRET=1');
  return dir;
}

const get = (url: string, init: RequestInit = {}) => fetch(url, { redirect: 'manual', ...init });

describe('step: the web console (static files under /console/)', () => {
  let built: Awaited<ReturnType<typeof startSteps>>;
  let unbuilt: Awaited<ReturnType<typeof startSteps>>;
  const dirs: string[] = [];
  before(async () => {
    dirs.push(fakeBuild(), fs.mkdtempSync(path.join(os.tmpdir(), 'console-empty-')));
    built = await startSteps([express.Router().use('/console', serveConsole(dirs[0]!))]);
    unbuilt = await startSteps([express.Router().use('/console', serveConsole(dirs[1]!))]);
  });
  after(async () => {
    await Promise.all([built.close(), unbuilt.close()]);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html under a strict policy: own script and style only, nothing inline, no framing, Trusted Types', async () => {
    const page = await get(`${built.url}/console/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(await page.text()).to.contain('console-AB12.js');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).to.contain("default-src 'none'").and.contain("script-src 'self'").and.contain("style-src 'self'").and.contain("connect-src 'self'");
    expect(csp).to.contain("frame-ancestors 'none'").and.contain("require-trusted-types-for 'script'");
    expect(csp).to.not.contain('unsafe-inline').and.not.contain('unsafe-eval');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(page.headers.get('request-id')).to.match(/^req_/);
  });

  it('sends /console to /console/ (its asset URLs are relative), keeping the query', async () => {
    const bare = await get(`${built.url}/console?lang=en`);
    expect(bare.status).to.equal(308);
    expect(bare.headers.get('location')).to.equal('/console/?lang=en');
  });

  it('serves content-hashed assets as immutable, and HEAD without a body', async () => {
    const asset = await get(`${built.url}/console/assets/console-AB12.js`);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/javascript/);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(await asset.text()).to.equal('export {};');
    const head = await get(`${built.url}/console/assets/console-AB12.js`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
  });

  it('answers anything else with the API error shape: unknown files, dotfiles and paths out of the folder are 404s', async () => {
    for (const target of ['/console/nothing.js', '/console/.env', '/console/..%2f..%2fetc%2fpasswd', '/console/assets/..%2f.env']) {
      const answer = await get(built.url + target);
      expect(answer.status, target).to.equal(404);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code, target).to.equal('route_not_found');
      expect(body.error.message, target).to.not.contain('SECRET');
      expect(answer.headers.get('content-security-policy'), target).to.contain("default-src 'none'");
    }
  });

  it('takes GET and HEAD only', async () => {
    const post = await get(`${built.url}/console/`, { method: 'POST', body: 'x' });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('says how to build it when the folder holds no build', async () => {
    const answer = await get(`${unbuilt.url}/console/`);
    expect(answer.status).to.equal(404);
    expect(((await answer.json()) as { error: { message: string } }).error.message).to.equal(
      'The console is not built in this installation: `npm run build` writes it into dist/console.',
    );
  });

  it('leaves every other path to the next steps', async () => {
    const answer = await get(`${built.url}/consoles`);
    expect(answer.status).to.equal(200);
    expect(((await answer.json()) as { operationId?: string }).operationId).to.equal(undefined);
  });
});
