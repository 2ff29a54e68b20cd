// `npm start`: read the environment, start the gateway, print how to call it, stop gracefully on
// SIGTERM or Ctrl-C (a second signal stops at once).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from './config.ts';
import { startGateway, type Gateway } from './gateway.ts';

export { startGateway, type Gateway } from './gateway.ts';

function printWelcome(gateway: Gateway, config: Config): void {
  const lines = [
    '',
    `Gateway ready on ${gateway.url} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}${config.sandbox ? ', sandbox providers on' : ''})`,
    gateway.adminTokenGenerated || !config.adminToken ? `Admin token: ${gateway.adminToken}  (kept in ${path.join(config.dataDir, 'admin-token')})` : 'Admin token: from ADMIN_TOKEN',
  ];
  if (gateway.demo) {
    lines.push(
      `Demo customer ${gateway.demo.customer_id}, API key: ${gateway.demo.api_key}`,
      'Try it:',
      `  curl -s ${gateway.url}/v1/models -H "Authorization: Bearer ${gateway.demo.api_key}"`,
      `  curl -s ${gateway.url}/v1/messages -H "x-api-key: ${gateway.demo.api_key}" -H "content-type: application/json" \\`,
      `    -d '{"model":"sandbox/claude-sonnet","max_tokens":256,"messages":[{"role":"user","content":"Hello"}]}'`,
      `  ANTHROPIC_BASE_URL=${gateway.url} ANTHROPIC_API_KEY=${gateway.demo.api_key}  # for the Anthropic SDK or Claude Code`,
      `  OPENAI_BASE_URL=${gateway.url}/v1 OPENAI_API_KEY=${gateway.demo.api_key}  # for the OpenAI SDK: model sandbox/chat-model`,
    );
  } else {
    lines.push('Create a customer and a key:', '  npm run admin -- customers create --name "Acme"');
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config, { seedDemo: true });
  printWelcome(gateway, config);
  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) process.exit(1);
    process.stderr.write(`${signal}: finishing open requests (up to ${config.shutdownGraceSeconds} s), then stopping\n`);
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
