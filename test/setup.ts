// Root hooks and global fixtures for every mocha run: one database per process, closed at the end.
// Under --parallel each worker runs file after file with the root hooks around each one, so a
// worker keeps its database open across files (opening one costs a PGlite start and the
// migrations); the worker ends with the run, and the main process drops its PostgreSQL database.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../src/config.ts';
import { closeTestDatabase, dropWorkerDatabases, inParallelWorker } from './helpers/db.ts';
import { closeLeftOpen } from './helpers/gateway.ts';
import { compileForProcesses } from './helpers/gateway-process.ts';
import { fileTiming } from './helpers/timing.ts';

const timing = fileTiming(process.env.TEST_TIMING);

export const mochaHooks = {
  beforeAll(this: Mocha.Context): void {
    timing?.start();
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    const file = this.test?.parent?.suites[0]?.file;
    const left = await closeLeftOpen();
    timing?.stop(file);
    if (!inParallelWorker()) await closeTestDatabase();
    // Closed above, so the next file starts clean; a failure, so the file gets fixed. (Under
    // --parallel these hooks run around each file; in one process, once around all of them.)
    if (left) throw new Error(`${left} test gateway(s) left open by ${file ?? 'the files just run'}: close each in an after hook`);
  },
};

/**
 * Once per run, in the main process, before any file: the web console's build, which the console
 * tests serve (built here rather than by each of them: two files rebuilding dist/console at once,
 * in two workers, would swap it under each other), and the compiled gateway that tests run as a
 * process of its own (test/helpers/gateway-process.ts). A run started by a test of this run
 * (test/integration/harness.test.ts) uses the outer run's, which it must not rewrite under it.
 */
export function mochaGlobalSetup(): void {
  if (process.env.GATEWAY_TEST_BUILD) return;
  execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts/build-console.js'), '--quiet'], { stdio: 'inherit' });
  compileForProcesses();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await dropWorkerDatabases();
}
