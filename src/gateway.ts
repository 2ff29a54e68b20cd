// Composition root: the only module that wires config, database, catalogue, services, background
// jobs and HTTP, and that knows the order in which they stop.
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { ROOT_DIR, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import type { Gateway, GatewayOverrides } from './gateway-types.ts';
import { openDatabase, pgliteDirFor } from './db/knex.ts';
import { createCatalogueStore, readCatalogueProviders } from './catalogue/store.ts';
import { followKeyChanges } from './customers/key-changes.ts';
import { createCustomerService } from './customers/service.ts';
import { createAccountService } from './domain/account/service.ts';
import { createBillingService } from './domain/billing/service.ts';
import { createTokenQuotes } from './domain/billing/token-quote.ts';
import { createAlerts } from './domain/alerts/service.ts';
import { webhookEgress } from './domain/alerts/egress.ts';
import { createChatService } from './domain/chat/service.ts';
import { createResponseIds } from './domain/responses/ids.ts';
import { responseTaskKind } from './domain/responses/kind.ts';
import { createResponsesService } from './domain/responses/service.ts';
import { createGeminiService } from './domain/gemini/service.ts';
import { createDiscoveryService } from './domain/discovery/service.ts';
import { createHealthService } from './domain/health/service.ts';
import { createHoldsReview } from './domain/holds/service.ts';
import { createMessagesService } from './domain/messages/service.ts';
import { createRedeemCodes } from './domain/redeem/service.ts';
import { createPassthrough } from './domain/passthrough/core.ts';
import { videoTaskKind } from './domain/videos/kind.ts';
import { createVideoReview } from './domain/videos/review.ts';
import { createVideoService } from './domain/videos/service.ts';
import { createApp } from './http/app.ts';
import { createCors } from './http/cors.ts';
import { adminHandlers, publicHandlers } from './http/handlers/index.ts';
import { startHttpServer } from './http/server.ts';
import { loadSpec } from './http/spec.ts';
import { repeat, startBackgroundJobs } from './jobs/cron.ts';
import { createSweeper } from './holds/sweeper.ts';
import { startHoldsRuntime } from './holds/runtime.ts';
import { createLedger } from './ledger/service.ts';
import { resolveProviders } from './providers/registry.ts';
import { createMetrics } from './metrics/registry.ts';
import { startMetricsServer } from './metrics/server.ts';
import { createRequestLogs } from './logs/request-logs.ts';
import { startSandbox } from './sandbox/index.ts';
import type { Services } from './services.ts';
import { waitUntil } from './shared/wait.ts';
import { readTaskGauges } from './tasks/gauges.ts';
import { taskKinds } from './tasks/kind.ts';
import { createTaskWorker } from './tasks/worker.ts';
import { resolveAdminToken } from './startup/admin-token.ts';
import { prepareDemo } from './startup/demo.ts';

export type { Gateway, GatewayOverrides } from './gateway-types.ts';

export async function startGateway(config: Config, overrides: GatewayOverrides = {}): Promise<Gateway> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db =
    overrides.db ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      pgliteDir: pgliteDirFor(config.dataDir),
      queryTimeoutMs: config.dbQueryTimeoutMs,
      logger,
      // Without its database the gateway can only fail requests: exit, for a supervisor to restart.
      onEmbeddedExit: (error) => {
        logger.fatal({ err: error.message }, 'the embedded database process ended');
        process.exit(1);
      },
    }));
  const sandbox = config.sandbox ? await startSandbox(readCatalogueProviders(config.cataloguePath), { dataDir: config.dataDir }) : undefined;
  // Before the catalogue: the task providers' clients report to it (its gauges read the catalogue only when scraped).
  const modelExists = (id: string) => catalogue.current().models.has(id);
  const metrics = createMetrics({ db, logger, knownModel: modelExists, currency: () => catalogue.current().currency, taskGauges: () => readTaskGauges(db) });
  const catalogue = await createCatalogueStore({
    path: config.cataloguePath,
    resolveProviders: (entries, options) => resolveProviders(entries, options, { metrics, logger }),
    db,
    logger,
    env: process.env,
    sandbox: config.sandbox,
    sandboxUrls: sandbox?.urls ?? new Map(),
    sandboxCredentials: sandbox?.credentials ?? new Map(),
    egressProxy: config.egressProxy,
  });
  catalogue.watch();

  let draining = false;
  const cut = new AbortController(); // aborted when the grace period ends: open streams are cut
  setMaxListeners(0, cut.signal); // every open stream listens to it: more than 10 is normal, not a leak
  const ledger = createLedger({ db });
  const runtime = await startHoldsRuntime({ db, ledger, logger, config });
  const { instance, settler, holds } = runtime;
  const requestLogs = createRequestLogs({ db, logger });
  const customers = createCustomerService({
    db,
    apiKeyPrefix: config.apiKeyPrefix,
    modelExists,
    keyCacheMs: config.keyCacheMs,
    keyWarmMs: config.keyWarmMs,
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  const keyWarmth =
    config.keyCacheMs > 0 && config.keyWarmMs > 0
      ? repeat(Math.max(config.keyCacheMs / 2, 50), 'key-warmth', logger, () => customers.keepKeysWarm())
      : undefined;
  // The embedded database has one process: changes made through it are forgotten here at once.
  const keyChanges =
    config.databaseUrl && config.keyCacheMs > 0
      ? followKeyChanges({ connectionString: config.databaseUrl, forget: customers.forgetChanged, logger, metrics, connectTimeoutMs: config.dbQueryTimeoutMs })
      : undefined;
  const discovery = createDiscoveryService({ catalogue });
  const passthrough = createPassthrough({ discovery, holds, logger, shutdown: cut.signal, metrics });
  const quote = createTokenQuotes({ passthrough, ledger });
  const responseIds = createResponseIds({ db, logger });
  const kinds = taskKinds(videoTaskKind, responseTaskKind({ ids: responseIds })); // the task engine's kinds, by name
  const tasks = { db, ledger, logger, catalogue, kinds, pollMs: config.videoPollIntervalMs, metrics };
  const services: Services = {
    customers,
    account: createAccountService({ db, ledger, customers, discovery, requestLogs }),
    billing: createBillingService({ db, ledger, discovery }),
    redeem: createRedeemCodes({ db, ledger, limits: config.redeemAttempts }),
    alerts: createAlerts({ db, logger, discovery, egress: webhookEgress(config.webhookAllowInternal) }),
    catalogue,
    discovery,
    health: createHealthService({ db, catalogue, draining: () => draining }),
    ledger,
    holds,
    holdsReview: createHoldsReview({ ledger, staleSeconds: config.staleReservationSeconds }),
    settler,
    sweeper: createSweeper({ ledger, requestLogs, logger, staleSeconds: config.staleReservationSeconds, metrics }),
    messages: createMessagesService({ passthrough, discovery, quote }),
    chat: createChatService({ passthrough, quote }),
    responses: createResponsesService({ passthrough, discovery, catalogue, ids: responseIds, tasks, quote }),
    gemini: createGeminiService({ passthrough, discovery }),
    videos: createVideoService({ tasks, discovery }),
    videoWorker: createTaskWorker({ ...tasks, pollIntervalMs: config.videoPollIntervalMs }),
    videoReview: createVideoReview({ db, ledger }),
    requestLogs,
    metrics,
  };
  await settler.replayOrphans();
  const tickers = startBackgroundJobs(
    config,
    { sweep: () => services.sweeper.sweep(), drainVideos: (stop) => services.videoWorker.drain(stop), webhooks: () => services.alerts.tick() },
    logger,
  );
  const { token: adminToken, generated: adminTokenGenerated } = resolveAdminToken(config.adminToken, config.dataDir);
  const demo = await prepareDemo({
    customers,
    ledger,
    db,
    logger,
    dataDir: config.dataDir,
    sandbox: config.sandbox,
    seed: overrides.seedDemo === true,
    sandboxModels: [...catalogue.current().models.values()].filter((m) => m.routes.length > 0 && m.routes.every((r) => r.provider.sandbox)).map((m) => m.id),
  });

  const [publicSpec, adminSpec] = await Promise.all([
    loadSpec(path.join(ROOT_DIR, 'generated/openapi.json')),
    loadSpec(path.join(ROOT_DIR, 'generated/admin.json')),
  ]);
  const consoleDir = config.console ? path.join(ROOT_DIR, 'dist', 'console') : undefined;
  const app = createApp({
    publicSurface: { spec: publicSpec, handlers: publicHandlers },
    adminSurface: { spec: adminSpec, handlers: adminHandlers, admin: true },
    services,
    logger,
    adminToken,
    bodyLimitBytes: config.bodyLimitBytes,
    bodyIdleTimeoutMs: config.connections.bodyIdleTimeoutMs,
    validateResponses: config.validateResponses,
    trustRequestId: config.trustRequestId,
    trustProxy: config.trustProxy,
    metrics,
    cors: createCors(config.corsOrigins),
    consoleDir,
    connections: config.connections, // the Responses WebSockets' limits
  });
  const server = await startHttpServer(app.express, {
    host: config.host,
    port: config.port,
    logger,
    draining: () => draining,
    classes: app.classes,
    upgrade: app.sockets,
    limits: config.connections,
    metrics,
  });
  const { url } = server;
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, { host: config.metricsHost, port: config.metricsPort, logger, limits: config.connections });
  logger.info({ url, instance: instance.id, database: config.databaseUrl ? 'postgresql' : 'pglite', sandbox: config.sandbox }, 'gateway listening');

  let closing: Promise<void> | undefined;
  async function shutdown(graceMs: number): Promise<void> {
    // Still listening while draining: readiness answers 503 (load balancers stop sending) and
    // requests that arrive meanwhile are served, with `connection: close`.
    draining = true;
    app.sockets.drain(); // WebSockets close after their turn in flight (each is an open request until then)
    await waitUntil(() => server.inFlight() === 0, graceMs);
    if (server.inFlight() > 0) {
      logger.warn({ open_requests: server.inFlight() }, 'grace period over: cutting open requests and settling what they delivered');
      cut.abort();
      await waitUntil(() => server.inFlight() === 0, 5_000);
    }
    await server.close();
    await metricsServer?.close(); // scraped until here: the drain shows on dashboards
    await Promise.all(tickers.map((t) => t.stop()));
    catalogue.close();
    await Promise.all([runtime.stop(), keyWarmth?.stop(), keyChanges?.close()]);
    await Promise.all([requestLogs.close(), responseIds.flush()]);
    await runtime.release();
    await sandbox?.close();
    if (!overrides.db) await db.destroy();
    logger.info({ waiting_settlements: settler.waiting() }, 'gateway stopped');
  }

  return {
    url,
    adminToken,
    adminTokenGenerated,
    demo,
    services,
    db,
    consoleDir,
    metricsUrl: metricsServer?.url,
    simulators: sandbox?.simulators ?? new Map(),
    close: (options = {}) => (closing ??= shutdown(options.graceMs ?? config.shutdownGraceSeconds * 1000)),
    quiesce: () => runtime.quiesce(),
  };
}
