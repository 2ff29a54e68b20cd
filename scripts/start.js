// npm start: compile src/ into dist/ (incremental tsc, a few seconds) and bundle the web console
// into dist/console (scripts/build-console.js), then run the gateway in this
// same process. One process from npm's point of view, so a Ctrl-C or a SIGTERM sent to npm reaches
// the gateway itself and nothing is left holding the port (a `build && node` script line runs
// under a shell that npm's forwarded signal kills, orphaning node). Plain JavaScript: it runs
// before anything is compiled.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('npm start builds with TypeScript, a dev dependency that is not installed; after `npm prune --omit=dev` run `npm run serve`.\n');
  process.exit(1);
}

const build = spawn(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
// During the build a signal stops the compiler and this process; once the gateway runs, its own
// handlers (src/main.ts) drain and stop it.
const interrupt = (signal) => {
  build.kill(signal);
  process.exitCode = 128 + (signal === 'SIGINT' ? 2 : 15);
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);
const code = await new Promise((resolve) => build.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
process.off('SIGINT', interrupt);
process.off('SIGTERM', interrupt);
if (process.exitCode) process.exit();
if (code !== 0) {
  process.stderr.write('npm start: the build failed (above); nothing started.\n');
  process.exit(code);
}
// The web console's files (dist/console), bundled by esbuild in well under a second.
try {
  const { buildConsole } = await import(pathToFileURL(path.join(root, 'scripts/build-console.js')).href);
  await buildConsole({ root });
} catch (error) {
  process.stderr.write(`npm start: the console did not build (${error instanceof Error ? error.message : String(error)}); the API starts without it.\n`);
}
const { main } = await import(pathToFileURL(path.join(root, 'dist/src/main.js')).href);
await main();
