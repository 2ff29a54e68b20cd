// Runs the pinned Codex CLI (`codex exec`, one prompt, no TTY) against a Responses endpoint from a
// throwaway CODEX_HOME, in an empty environment but for PATH, with the README's configuration:
// a model provider with base_url, env_key and wire_api = "responses".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CODEX_VERSION = '0.169.0';
export const CODEX_BIN = path.resolve(import.meta.dirname, 'node_modules/.bin/codex');

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit. */
  ms: number;
  dirs: { project: string; codexHome: string; tmp: string };
}

/** The config.toml the README shows, for `baseUrl` (the gateway's /v1) and a key in GW_KEY. */
export function codexConfig(baseUrl: string, model: string, websockets = false): string {
  return [
    `model = "${model}"`,
    'model_provider = "gateway"',
    '',
    '[model_providers.gateway]',
    'name = "AI gateway"',
    `base_url = "${baseUrl}"`,
    'env_key = "GW_KEY"',
    'wire_api = "responses"',
    ...(websockets ? ['supports_websockets = true'] : []),
    '',
  ].join('\n');
}

export async function runCodex(options: { baseUrl: string; key: string; prompt: string; model: string; websockets?: boolean }): Promise<CodexRun> {
  if (!fs.existsSync(CODEX_BIN)) throw new Error(`Codex CLI ${CODEX_VERSION} is not installed: run npm ci --prefix test/e2e/codex`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-run-'));
  const dirs = { project: path.join(root, 'project'), codexHome: path.join(root, 'codex'), tmp: path.join(root, 'tmp') };
  for (const dir of [...Object.values(dirs), path.join(root, 'home')]) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dirs.codexHome, 'config.toml'), codexConfig(options.baseUrl, options.model, options.websockets));
  const started = Date.now();
  const child = spawn(CODEX_BIN, ['exec', '--skip-git-repo-check', options.prompt], {
    cwd: dirs.project,
    env: {
      PATH: `/usr/bin:/bin:${path.dirname(process.execPath)}`,
      HOME: path.join(root, 'home'),
      CODEX_HOME: dirs.codexHome,
      TMPDIR: dirs.tmp,
      GW_KEY: options.key,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  fs.rmSync(root, { recursive: true, force: true });
  return { code, stdout, stderr, ms: Date.now() - started, dirs };
}
