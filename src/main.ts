// The gateway's entry point: read the environment, check what it points at, start the gateway,
// print how to call it, stop gracefully on SIGTERM or Ctrl-C (a second signal stops at once).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, ROOT_DIR, type Config } from './config.ts';
import { preflight } from './config/preflight.ts';
import { reportStartupFailure } from './config/startup-errors.ts';
import { startGateway, type Gateway } from './gateway.ts';

export { startGateway, type Gateway } from './gateway.ts';

/** The listening address as a client can use it: a wildcard address is reached through loopback. */
const reachable = (url: string): string => url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');

function printWelcome(gateway: Gateway, config: Config): void {
  const url = config.publicUrl ?? reachable(gateway.url);
  const lines = [
    '',
    `Gateway ready on ${reachable(gateway.url)}${config.publicUrl ? `, reached at ${config.publicUrl}` : ''} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}${config.sandbox ? ', sandbox providers on' : ''})`,
    gateway.adminTokenGenerated || !config.adminToken
      ? `Admin token: ${gateway.adminToken}  (kept in ${path.join(config.dataDir, 'admin-token')})`
      : 'Admin token: from ADMIN_TOKEN',
    consoleLine(gateway.consoleDir, url),
  ];
  if (gateway.demo) {
    lines.push(
      `Demo customer ${gateway.demo.customer_id}, API key: ${gateway.demo.api_key}`,
      'Try it:',
      `  curl -s ${url}/v1/models -H "Authorization: Bearer ${gateway.demo.api_key}"`,
      `  curl -s ${url}/v1/messages -H "x-api-key: ${gateway.demo.api_key}" -H "content-type: application/json" \\`,
      `    -d '{"model":"sandbox/claude-sonnet","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`,
      `  ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=${gateway.demo.api_key}  # for the Anthropic SDK or Claude Code`,
      `  OPENAI_BASE_URL=${url}/v1 OPENAI_API_KEY=${gateway.demo.api_key}  # for the OpenAI SDK: model sandbox/chat-model`,
      `  GOOGLE_GEMINI_BASE_URL=${url} GEMINI_API_KEY=${gateway.demo.api_key}  # for Gemini CLI (docs/gemini.md); the google-genai SDK: model sandbox/gemini-pro`,
      `The demo key reaches only the sandbox models and is suspended on any start without them (SANDBOX=false).`,
      `Revoke it when you no longer want it: npm run admin -- keys revoke ${gateway.demo.key_id}`,
    );
  } else {
    lines.push(
      config.adminToken ? 'Create a customer and a key (in a shell with this ADMIN_TOKEN):' : 'Create a customer and a key:',
      `  ${adminCli(config, reachable(gateway.url))} customers create --name "Acme"`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/**
 * The operator CLI as it reaches this gateway from this host, whatever the shell's PORT and HOST:
 * its address, and where its generated token is kept (ADMIN_TOKEN is never printed).
 */
function adminCli(config: Config, url: string): string {
  const quote = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  const dataDir = config.adminToken ? '' : ` DATA_DIR=${quote(config.dataDir)}`;
  const npm = process.cwd() === ROOT_DIR ? 'npm' : `npm --prefix ${quote(ROOT_DIR)}`;
  return `GATEWAY_URL=${quote(url)}${dataDir} ${npm} run -s admin --`;
}

/** Where the web console is, or why it is not there. */
function consoleLine(dir: string | undefined, url: string): string {
  if (!dir) return 'Console: off (CONSOLE=false)';
  if (!fs.existsSync(path.join(dir, 'index.html'))) return 'Console: not built (npm run build writes it into dist/console)';
  return `Console: ${url}/console/  (operators sign in with the admin token, customers with an API key)`;
}

/**
 * Starts the gateway from the environment and stops it on SIGTERM or SIGINT. A start-up failure is
 * one line per problem naming the variable to fix, and exit code 1. `scripts/start.js` (npm start)
 * calls this after building; `node dist/src/main.js` (npm run serve, the container) runs it directly.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config | undefined;
  let gateway: Gateway;
  try {
    config = loadConfig(env);
    await preflight(config);
    // A funded demo key exists only beside the sandbox providers: a production start (SANDBOX=false)
    // creates no customer and prints no key into its logs.
    gateway = await startGateway(config, { seedDemo: config.sandbox });
  } catch (error) {
    reportStartupFailure(error, config);
    process.exit(1);
  }
  printWelcome(gateway, config);
  const graceSeconds = config.shutdownGraceSeconds;
  let firstSignalAt = 0;
  const stop = (signal: string) => {
    // Ctrl-C under npm arrives twice at once (from the terminal to the process group, and
    // forwarded by npm): only a signal sent a moment after the first one means "stop now".
    if (firstSignalAt) {
      if (Date.now() - firstSignalAt > REPEAT_SIGNAL_MS) process.exit(1);
      return;
    }
    firstSignalAt = Date.now();
    process.stderr.write(`${signal}: finishing open requests (up to ${graceSeconds} s), then stopping; send it again to stop at once\n`);
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

const REPEAT_SIGNAL_MS = 500;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
