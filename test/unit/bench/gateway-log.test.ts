// The bench's scan of the gateway's own output: what it counts as a warning.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { scanGatewayLog } from '../../../scripts/bench/phases/ledger.ts';

describe('bench: scanning the gateway log', () => {
  it("counts Node's process warnings on stderr, not the shutdown notice, and pino lines at warn and above", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-log-'));
    const stderr = path.join(dir, 'gateway.stderr.log');
    const log = path.join(dir, 'gateway.log');
    fs.writeFileSync(
      stderr,
      [
        'SIGTERM: finishing open requests (up to 30 s), then stopping; send it again to stop at once',
        '(node:27177) MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal].',
        '(Use `node --trace-warnings ...` to show where the warning was created)',
      ].join('\n'),
    );
    fs.writeFileSync(log, ['{"level":30,"msg":"request"}', '{"level":40,"msg":"upstream attempt failed"}', '{"level":50,"msg":"settle refused"}'].join('\n'));
    const scanned = await scanGatewayLog(log, stderr, []);
    expect(scanned).to.include({ stderrWarnings: 1, warnings: 1, errors: 1 });
    expect(scanned.firstStderr).to.match(/MaxListenersExceededWarning/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
