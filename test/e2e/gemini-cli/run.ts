// Runs the pinned Gemini CLI (`gemini -p`, one prompt, no TTY) against a Gemini API base URL from
// a throwaway HOME, in an empty environment but for PATH, with only GOOGLE_GEMINI_BASE_URL and
// GEMINI_API_KEY set for the gateway, plus the CLI's own headless set-up (unrelated to the
// gateway): `security.auth.selectedType: gemini-api-key` in ~/.gemini/settings.json and
// GEMINI_CLI_TRUST_WORKSPACE=true (without them it exits 41 or refuses the folder).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const GEMINI_CLI_VERSION = '0.61.0';
export const GEMINI_BIN = path.resolve(import.meta.dirname, 'node_modules/.bin/gemini');

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  dirs: { project: string; home: string; tmp: string };
}

export async function runGemini(options: { baseUrl: string; key: string; prompt: string; args?: string[] }): Promise<GeminiRun> {
  if (!fs.existsSync(GEMINI_BIN)) throw new Error(`Gemini CLI ${GEMINI_CLI_VERSION} is not installed: run bash scripts/gemini-cli-up.sh`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-run-'));
  const dirs = { project: path.join(root, 'project'), home: path.join(root, 'home'), tmp: path.join(root, 'tmp') };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir);
  fs.mkdirSync(path.join(dirs.home, '.gemini'));
  fs.writeFileSync(path.join(dirs.home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  const started = Date.now();
  const child = spawn(process.execPath, [GEMINI_BIN, ...(options.args ?? []), '-p', options.prompt], {
    cwd: dirs.project,
    env: {
      PATH: `/usr/bin:/bin:${path.dirname(process.execPath)}`,
      HOME: dirs.home,
      TMPDIR: dirs.tmp,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GOOGLE_GEMINI_BASE_URL: options.baseUrl,
      GEMINI_API_KEY: options.key,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  fs.rmSync(root, { recursive: true, force: true });
  return { code, stdout, stderr, ms: Date.now() - started, dirs };
}
