// npm run admin: the operator CLI from the source when the dev dependencies are installed (tsx), from
// the build otherwise (after `npm prune --omit=dev`, in the image), so the same command works in both.
// Plain JavaScript: it runs before anything is compiled.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist/src/cli/admin.js');
let fromSource = false;
try {
  createRequire(import.meta.url).resolve('tsx');
  fromSource = true;
} catch {
  fromSource = false;
}
if (!fromSource && !fs.existsSync(built)) {
  process.stderr.write('npm run admin: no build (dist/) and no dev dependencies; run `npm run build` first.\n');
  process.exit(2);
}
if (fromSource) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { runAdminCli } = await import(pathToFileURL(fromSource ? path.join(root, 'src/cli/admin.ts') : built).href);
process.exit(await runAdminCli(process.argv.slice(2)));
