// Two gateways on one database, for what must hold across replicas: on PostgreSQL two gateway
// processes beside the test's own gateway; the embedded PGlite admits one process, so there the
// test's gateway and a second one inside this process share it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/main.ts';
import { startChildGateway, type ChildGateway } from './child-gateway.ts';
import { testDatabaseUrlInUse, usingPostgres } from './db.ts';
import { SAMPLE_CATALOGUE, type TestGateway } from './gateway.ts';

export interface Replicas {
  /** The two gateways' URLs. */
  urls: [string, string];
  close(): Promise<void>;
}

export async function startReplicas(gateway: TestGateway, env: Record<string, string> = {}): Promise<Replicas> {
  if (usingPostgres()) {
    const children: ChildGateway[] = [];
    for (let i = 0; i < 2; i++) children.push(await startChildGateway({ env: { DATABASE_URL: testDatabaseUrlInUse(), ...env } }));
    return {
      urls: [children[0]!.url, children[1]!.url],
      async close() {
        for (const child of children) {
          child.child.kill('SIGTERM');
          await child.exited;
        }
      },
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-replica-'));
  const config = {
    ...loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: 'adm_test_token', VIDEO_POLLER: 'false', HOLD_SWEEPER: 'false', ...env }),
    cataloguePath: SAMPLE_CATALOGUE,
  };
  const second: Gateway = await startGateway(config, { db: gateway.db, logger: createLogger('silent') });
  return {
    urls: [gateway.url, second.url],
    async close() {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
