// A gateway poller in a process of its own, for the multi-replica test: it polls until killed.
import { createCatalogueStore } from '../../src/catalogue/store.ts';
import { openDatabase } from '../../src/db/knex.ts';
import { videoTaskKind } from '../../src/domain/videos/kind.ts';
import { createLedger } from '../../src/ledger/service.ts';
import { createLogger } from '../../src/logger.ts';
import { resolveProviders } from '../../src/providers/registry.ts';
import { taskKinds } from '../../src/tasks/kind.ts';
import { createTaskWorker } from '../../src/tasks/worker.ts';

const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolMax: 5 });
const logger = createLogger('silent');
const catalogue = await createCatalogueStore({
  path: process.env.CATALOGUE_PATH!,
  resolveProviders,
  db,
  logger,
  env: process.env,
  sandbox: false,
  sandboxUrls: new Map(),
});
const kinds = taskKinds(videoTaskKind);
const worker = createTaskWorker({
  db,
  ledger: createLedger({ db }),
  logger,
  catalogue,
  kinds,
  pollIntervalMs: 50,
  leaseMs: 1500,
  batchSize: 20,
  concurrency: 8,
});
process.stdout.write('ready\n');
for (;;) {
  const handled = await worker.drain(); // as the gateway's tick does
  if (handled === 0) await new Promise((r) => setTimeout(r, 20));
}
