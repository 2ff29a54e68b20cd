import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../../src/config.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// The web console as the gateway serves it (the screens themselves: test/e2e/console.test.ts).
describe(`the web console's files (CONSOLE) (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  before(async () => {
    gateway = await startTestGateway();
  });
  after(() => gateway?.close());

  it('serves the built page and the script and style it names, with no request-log row, counted in the metrics as console_asset', async () => {
    const build = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'dist/console/build.json'), 'utf8')) as { script: string; style: string };
    const logged = (await gateway.requestLogs('', 0)).length;
    const page = await fetch(`${gateway.url}/console/`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.contain(`./assets/${build.script}`).and.contain(`./assets/${build.style}`);
    expect(html).to.not.match(/<script>|<style|\sstyle=|\son[a-z]+=/i); // nothing inline: the policy would refuse it
    for (const asset of [build.script, build.style]) expect((await fetch(`${gateway.url}/console/assets/${asset}`)).status, asset).to.equal(200);
    expect(await gateway.requestLogs('', 0)).to.have.length(logged);
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).text();
    expect(metrics).to.match(/gateway_http_requests_total\{operation="console_asset",[^}]*status="200"\} 3/);
    const access = gateway.logs.filter((line) => line.operation === 'console_asset');
    expect(access.map((line) => line.level)).to.deep.equal([20, 20, 20]); // debug, as probes are
  });

  it('is as small as docs/console.md says (within 10%), and under 30 kB gzipped', () => {
    const build = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'dist/console/build.json'), 'utf8')) as {
      sizes: Record<string, { bytes: number; gzip: number }>;
    };
    const sizes = Object.values(build.sizes);
    const raw = sizes.reduce((n, s) => n + s.bytes, 0) / 1024;
    const gzip = sizes.reduce((n, s) => n + s.gzip, 0) / 1024;
    const stated = /\*\*([\d.]+) kB\*\* raw, \*\*([\d.]+) kB gzipped\*\*/.exec(fs.readFileSync(path.join(ROOT_DIR, 'docs/console.md'), 'utf8'));
    expect(stated, 'the bundle size line of docs/console.md').to.not.equal(null);
    expect(Math.abs(Number(stated![1]) - raw) / raw, `raw ${raw.toFixed(1)} kB`).to.be.lessThan(0.1);
    expect(Math.abs(Number(stated![2]) - gzip) / gzip, `gzipped ${gzip.toFixed(1)} kB`).to.be.lessThan(0.1);
    expect(gzip).to.be.lessThan(30);
  });

  it('leaves /console/ to the API with CONSOLE=false: a 404 like any unknown path', async () => {
    const off = await startTestGateway({ env: { CONSOLE: 'false' }, reuseDatabase: true });
    try {
      const answer = await fetch(`${off.url}/console/`);
      expect(answer.status).to.equal(404);
      expect(answer.headers.get('content-security-policy')).to.equal(null);
      expect(((await answer.json()) as any).error).to.include({ code: 'route_not_found', message: 'No route for GET /console/.' });
      expect(off.consoleDir).to.equal(undefined);
    } finally {
      await off.close();
    }
  });
});
