// Builds the web console (console/) into dist/console/: esbuild bundles console/src/main.tsx
// (Preact, JSX) and the CSS it imports into content-hashed files under assets/, and index.html
// names them. Nothing inline (the gateway's Content-Security-Policy allows no inline script or
// style). The new build is written beside the old one and swapped in, so a running gateway never
// serves half of one. Type checking is `tsc -p console` (npm run build runs it first).
// Plain JavaScript: npm start runs it before anything is compiled.
//   node scripts/build-console.js [--quiet]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds into `outDir` (default dist/console); returns the asset sizes in bytes, raw and gzipped. */
export async function buildConsole({ root = ROOT, outDir = path.join(root, 'dist', 'console') } = {}) {
  const staging = `${outDir}.staging-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { console: 'console/src/main.tsx' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    entryNames: '[name]-[hash]',
    outdir: path.join(staging, 'assets'),
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(path.join(staging, 'assets'), path.resolve(root, file)));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`console build: expected one .js and one .css, got ${outputs.join(', ')}`);
  fs.writeFileSync(path.join(staging, 'index.html'), page(script, style));
  const sizes = {};
  for (const file of outputs) {
    const bytes = fs.readFileSync(path.join(staging, 'assets', file));
    sizes[file] = { bytes: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
  }
  fs.writeFileSync(path.join(staging, 'build.json'), `${JSON.stringify({ script, style, sizes }, null, 2)}\n`);
  // Swap: the old build moves aside, the new one takes its name, the old one goes.
  const old = `${outDir}.old-${process.pid}`;
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
  fs.renameSync(staging, outDir);
  fs.rmSync(old, { recursive: true, force: true });
  return { script, style, sizes };
}

function page(script, style) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gateway console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="./assets/${style}">
<script type="module" src="./assets/${script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the console…</p></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>
`;
}

const kB = (n) => `${(n / 1024).toFixed(1)} kB`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { sizes } = await buildConsole();
  if (!process.argv.includes('--quiet')) {
    for (const [file, size] of Object.entries(sizes)) process.stdout.write(`console: dist/console/assets/${file}  ${kB(size.bytes)} (${kB(size.gzip)} gzip)\n`);
  }
}
