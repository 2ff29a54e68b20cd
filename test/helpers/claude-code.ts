// Runs a Claude Code release (`claude -p`, one prompt, no TTY) against a base URL with only
// ANTHROPIC_BASE_URL and a key, from a throwaway home in an empty environment (no network beyond
// the base URL: test/fixtures/claude-code/README.md says why each variable is set).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../../src/config.ts';

export interface ClaudeRelease {
  version: string;
  bin: string;
}

/** The project's pinned release (devDependency) and an older one pinned in test/e2e/claude-code-older (scripts/claude-code-up.sh). */
export const CLAUDE_CODE_RELEASES: readonly ClaudeRelease[] = [
  { version: '2.1.330', bin: path.join(ROOT_DIR, 'node_modules/.bin/claude') },
  { version: '2.1.197', bin: path.join(ROOT_DIR, 'test/e2e/claude-code-older/node_modules/.bin/claude') },
];

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The throwaway home (CLAUDE_CONFIG_DIR is its .claude). */
  home: string;
}

export interface ClaudeRunOptions {
  baseUrl: string;
  key: string;
  prompt?: string;
  /** `--model`; absent: the release's default. */
  model?: string;
  /**
   * CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY=1. Older releases skip discovery while
   * nonessential traffic is disabled, so that switch is left out then (the run also sends a
   * HEAD / to the base URL, which it ignores).
   */
  discovery?: boolean;
}

export async function runClaude(release: ClaudeRelease, options: ClaudeRunOptions): Promise<ClaudeRun> {
  if (!fs.existsSync(release.bin)) throw new Error(`Claude Code ${release.version} is not installed: run bash scripts/claude-code-up.sh (npm test does)`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `claude-${release.version}-`));
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    TMPDIR: home,
    CLAUDE_CODE_TMPDIR: home,
    XDG_RUNTIME_DIR: home,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.key,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK: '1',
    ...(options.discovery ? { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1' } : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
  };
  const args = ['-p', options.prompt ?? 'say hi', '--output-format', 'json', ...(options.model ? ['--model', options.model] : [])];
  const started = Date.now();
  const child = spawn(release.bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: home });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started, home };
}

/** The models Claude Code kept from the gateway's list (its discovery cache), if it wrote one. */
export function discoveredModels(run: ClaudeRun): { baseUrl: string; models: Array<{ id: string; display_name?: string }> } | undefined {
  const file = path.join(run.home, '.claude', 'cache', 'gateway-models.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { baseUrl: string; models: Array<{ id: string }> }) : undefined;
}
