// Composition root: the only module that wires config, database, catalogue, services and HTTP.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { loadConfig, ROOT_DIR, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { openDatabase, pgliteDirFor, type Knex } from './db/knex.ts';
import { createCatalogueStore } from './catalogue/store.ts';
import { createCustomerService } from './customers/service.ts';
import { createDiscoveryService } from './domain/discovery/service.ts';
import { createHealthService } from './domain/health/service.ts';
import { createLedger } from './ledger/service.ts';
import { createMessagesService } from './domain/messages/service.ts';
import { createVideoService } from './domain/videos/service.ts';
import { createVideoWorker } from './domain/videos/worker.ts';
import { createVideoReview } from './domain/videos/review.ts';
import { scheduleVideoPoller } from './jobs/cron.ts';
import type { Simulator } from './sandbox/index.ts';
import { createRequestLogs } from './logs/request-logs.ts';
import { createApp } from './http/app.ts';
import { adminHandlers, publicHandlers } from './http/handlers/index.ts';
import { loadSpecApi } from './http/openapi.ts';
import { startSandbox } from './sandbox/index.ts';
import { readCatalogueProviders } from './catalogue/store.ts';
import { resolveAdminToken } from './startup/admin-token.ts';
import { ensureDemoCustomer, type DemoCredentials } from './startup/demo.ts';
import type { Services } from './services.ts';

export interface Gateway {
  url: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  demo: DemoCredentials | undefined;
  services: Services;
  db: Knex;
  /** The running simulated upstreams by sandbox provider id (sandbox mode). */
  simulators: ReadonlyMap<string, Simulator>;
  close(): Promise<void>;
}

export interface GatewayOverrides {
  /** An already migrated database (tests share one per process). */
  db?: Knex;
  logger?: Logger;
  /** Create the demo customer on an empty database (npm start does; tests do not). */
  seedDemo?: boolean;
}

export async function startGateway(config: Config, overrides: GatewayOverrides = {}): Promise<Gateway> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db =
    overrides.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      pgliteDir: pgliteDirFor(config.dataDir),
      // Without its database the gateway can only fail requests: exit, for a supervisor to restart.
      onEmbeddedExit: (error) => {
        logger.fatal({ err: error.message }, 'the embedded database process ended');
        process.exit(1);
      },
    }));
  const sandbox = config.sandbox ? await startSandbox(readCatalogueProviders(config.cataloguePath)) : undefined;
  const catalogue = await createCatalogueStore({
    path: config.cataloguePath,
    db,
    logger,
    env: process.env,
    sandbox: config.sandbox,
    sandboxUrls: sandbox?.urls ?? new Map(),
  });
  catalogue.watch();

  const customers = createCustomerService({
    db,
    apiKeyPrefix: config.apiKeyPrefix,
    modelExists: (id) => catalogue.current().models.has(id),
    keyCacheMs: config.keyCacheMs,
  });
  const discovery = createDiscoveryService({ catalogue });
  const ledger = createLedger({ db });
  const services: Services = {
    customers,
    catalogue,
    discovery,
    health: createHealthService({ db, catalogue }),
    ledger,
    messages: createMessagesService({ discovery, ledger, logger }),
    videos: createVideoService({ db, ledger, discovery, logger, pollIntervalMs: config.videoPollIntervalMs }),
    videoWorker: createVideoWorker({ db, ledger, logger, catalogue, pollIntervalMs: config.videoPollIntervalMs }),
    videoReview: createVideoReview({ db, ledger }),
    requestLogs: createRequestLogs({ db, logger }),
  };
  const poller = config.videoPoller ? scheduleVideoPoller(services.videoWorker, logger, 100) : undefined;
  const { token: adminToken, generated: adminTokenGenerated } = resolveAdminToken(config.adminToken, config.dataDir);
  const demo = overrides.seedDemo ? await ensureDemoCustomer(customers, services.ledger, config.dataDir) : undefined;

  const [publicSpec, adminSpec] = await Promise.all([
    loadSpecApi(path.join(ROOT_DIR, 'generated/openapi.json')),
    loadSpecApi(path.join(ROOT_DIR, 'generated/admin.json')),
  ]);
  const app = createApp({
    publicSurface: { spec: publicSpec, handlers: publicHandlers },
    adminSurface: { spec: adminSpec, handlers: adminHandlers, admin: true },
    services,
    logger,
    adminToken,
    bodyLimitBytes: config.bodyLimitBytes,
    validateResponses: config.validateResponses,
  });
  const server = http.createServer(app);
  // Long generations stream for minutes: no server-side request timeout, but idle sockets expire.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, database: config.databaseUrl ? 'postgresql' : 'pglite', sandbox: config.sandbox }, 'gateway listening');

  return {
    url,
    adminToken,
    adminTokenGenerated,
    demo,
    services,
    db,
    simulators: sandbox?.simulators ?? new Map(),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      poller?.stop();
      catalogue.close();
      await services.requestLogs.close();
      await sandbox?.close();
      if (!overrides.db) await db.destroy();
    },
  };
}

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
  const stop = async () => {
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
