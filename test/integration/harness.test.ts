// The suite's own guard: a file that leaves a test gateway running (its poller, sweeper and
// flushes would work on the worker's database during the next file) fails, and the gateway is
// closed before the next file starts.
import { execFile } from 'node:child_process';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';

describe('the test harness', function () {
  this.timeout(60_000);

  it('fails a file that leaves a test gateway open, naming it', async () => {
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['node_modules/mocha/bin/mocha.js', '--config', 'test/tiers.mocharc.json', '--no-parallel', 'test/fixtures/harness/leaves-a-gateway.ts'],
        { cwd: ROOT_DIR, env: { ...process.env, TEST_TIMING: '' } },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
      );
    });
    expect(run.output).to.include('1 passing');
    expect(run.output).to.match(/1 test gateway\(s\) left open by \S*leaves-a-gateway\.ts: close each in an after hook/);
    expect(run.code, run.output).to.not.equal(0);
  });
});
