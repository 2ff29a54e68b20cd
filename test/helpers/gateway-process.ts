// How a test runs the gateway as a process of its own: `node dist/test-build/src/main.js`, compiled
// once per run by the global setup (test/setup.ts: tsc with tsconfig.build.json's settings, type
// checking left to `npm run typecheck`), as `npm run serve` runs dist/src/main.js. Not
// `node --import tsx src/main.ts`: tsx's loader costs each process (and its embedded database's
// process, which fork gives the same flags) about a second of CPU at start, and the suite starts
// dozens. The setup names the build in GATEWAY_TEST_BUILD for the workers; without it (a file run
// without test/setup.ts) tsx runs the sources, never a build left by an earlier run.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';

export const TEST_BUILD_DIR = path.join(ROOT_DIR, 'dist', 'test-build');
const compiledMain = path.join(TEST_BUILD_DIR, 'src', 'main.js');

/** Compiles src/ into dist/test-build and names it for the workers (once per run, by the main process). */
export function compileForProcesses(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(
    process.execPath,
    [
      tsc,
      '-p',
      path.join(ROOT_DIR, 'tsconfig.build.json'),
      '--noCheck',
      '--outDir',
      TEST_BUILD_DIR,
      '--tsBuildInfoFile',
      path.join(TEST_BUILD_DIR, '.tsbuildinfo'),
    ],
    { cwd: ROOT_DIR, stdio: 'inherit' },
  );
  process.env.GATEWAY_TEST_BUILD = TEST_BUILD_DIR;
}

/**
 * The node arguments that run the gateway's entry point (then its own arguments, if any).
 * `--liftoff-only`: V8 keeps the embedded database's WebAssembly (PGlite, in the process the
 * gateway forks with its own flags) on its baseline compiler instead of optimising its hot
 * functions again in the background, which costs a process that lives a few seconds about 0.7 s
 * of CPU (a fifth of its start) and buys it nothing. The code it runs is the same.
 */
export function gatewayEntry(): string[] {
  const entry = process.env.GATEWAY_TEST_BUILD === TEST_BUILD_DIR ? [compiledMain] : ['--import', 'tsx', path.join(ROOT_DIR, 'src/main.ts')];
  return ['--liftoff-only', ...entry];
}
