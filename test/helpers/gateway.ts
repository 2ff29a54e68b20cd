import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, ROOT_DIR, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/main.ts';
import { getTestDatabase, resetDatabase } from './db.ts';

export const SAMPLE_CATALOGUE = path.join(ROOT_DIR, 'catalogue.sample.yaml');

export interface TestGateway extends Gateway {
  /** Every log line the gateway wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  rawLogs(): string;
  dataDir: string;
  admin(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Request log rows matching an admin query string, newest first, once at least `atLeast` exist:
   * a row is written when its request has settled, a moment after the client saw the response.
   */
  requestLogs(query: string, atLeast?: number): Promise<any[]>;
  /**
   * Resolves once no messages reservation is pending: a request's settle follows its last byte by
   * a moment, so a test reads the wallet after this.
   */
  settled(): Promise<void>;
  /** The log row of the request that got `requestId` (written once its charge is durable). */
  requestLog(requestId: string): Promise<any>;
  /** A customer's wallet as the admin API shows it, once pending messages settlements are done. */
  wallet(customerId: string): Promise<any>;
  /**
   * Rewrites the gateway's catalogue file and reloads it through the admin API, answering what the
   * reload said. The file watcher is stopped first: it reloads 50 ms after a write, and would
   * otherwise win now and then, leaving the operator's call `unchanged`.
   */
  rewriteCatalogue(edit: (text: string) => string): Promise<{ status: number; body: any }>;
  /**
   * Makes a running gateway as good as a new one for the next test, so a test file can boot one
   * gateway and share it: the last test's settlements and log rows are written first, then every
   * table is emptied (but this process's heartbeat row), the catalogue file is put back as it was at
   * start and reloaded (recording its price versions again), remembered keys are forgotten, the
   * simulated upstreams forget their recorded requests and queued behaviours, and the captured
   * log lines start again. Process-wide counters (the metrics registry) are not reset: a test of
   * metric values keeps a gateway of its own.
   */
  reset(): Promise<void>;
  /** A customer with one key, created through the admin API. */
  customerWithKey(options?: { allowedModels?: string[] }): Promise<{ customerId: string; keyId: string; key: string }>;
}

/** Test gateways started and not closed yet (a worker runs one file at a time). */
const open = new Set<TestGateway>();

/**
 * Closes the gateways the file that just ended left open (a root hook, test/setup.ts) and says
 * how many there were: a gateway left running keeps its timers (the video poller, the hold
 * sweeper, the request log's flush) working on the worker's database, in the next file's tests.
 */
export async function closeLeftOpen(): Promise<number> {
  const left = [...open];
  await Promise.all(left.map((gateway) => gateway.close()));
  return left.length;
}

export async function startTestGateway(
  options: { env?: Record<string, string>; cataloguePath?: string; reuseDatabase?: boolean; now?: () => Date } = {},
): Promise<TestGateway> {
  const db = await getTestDatabase();
  // A second gateway on the same database (another replica) must not empty it.
  if (!options.reuseDatabase) await resetDatabase(db);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  const config: Config = {
    ...loadConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'adm_test_token',
      VALIDATE_RESPONSES: 'true',
      LOG_LEVEL: 'debug',
      VIDEO_POLLER: 'false',
      HOLD_SWEEPER: 'false',
      REQUEST_LOG_UPKEEP: 'false', // tests run the upkeep by hand (services.requestLogs.upkeep)
      WEBHOOKS: 'false', // tests drive the alerts tick by hand (services.alerts.check/deliver)
      VIDEO_POLL_INTERVAL_MS: '100',
      ...options.env,
    }),
    cataloguePath: options.cataloguePath ?? SAMPLE_CATALOGUE,
  };
  const catalogueAtStart = fs.readFileSync(config.cataloguePath, 'utf8');
  let catalogueRewritten = false;
  let raw = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      raw += chunk.toString();
      callback();
    },
  });
  const gateway = await startGateway(config, { db, logger: createLogger('debug', sink), ...(options.now ? { now: options.now } : {}) });

  const versionsMark = async () => {
    const [row] = await db('price_versions').select(db.raw('count(*)::text as n, coalesce(max(id), 0)::text as last'));
    return `${row.n}:${row.last}`;
  };
  let loaded = { catalogue: gateway.services.catalogue.current(), versions: await versionsMark() };

  async function settled(): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      await gateway.quiesce();
      const [row] = await db('reservations')
        .where({ status: 'pending' })
        .whereNotExists(db('video_tasks').whereRaw('video_tasks.id = reservations.ref'))
        .count<{ n: string | number | bigint }[]>('* as n');
      if (Number(row?.n ?? 0) === 0) return;
      if (Date.now() > deadline) throw new Error('reservations still pending after 5 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const admin: TestGateway['admin'] = async (method, pathname, body) => {
    const response = await fetch(gateway.url + pathname, {
      method,
      headers: { authorization: `Bearer ${gateway.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };

  const testGateway: TestGateway = {
    ...gateway,
    dataDir,
    get logs() {
      return raw
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    rawLogs: () => raw,
    admin,
    async requestLogs(query, atLeast = 1) {
      const deadline = Date.now() + 5000;
      for (;;) {
        await gateway.services.requestLogs.flush();
        const rows = (await admin('GET', `/admin/v1/request-logs?limit=500&${query}`)).body.data as any[];
        if (rows.length >= atLeast || Date.now() > deadline) return rows;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    settled,
    async requestLog(requestId) {
      const deadline = Date.now() + 5000;
      for (;;) {
        await gateway.services.requestLogs.flush();
        const rows = (await admin('GET', '/admin/v1/request-logs?limit=500')).body.data as any[];
        const row = rows.find((r) => r.request_id === requestId);
        if (row || Date.now() > deadline) return row;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async wallet(customerId) {
      await settled();
      return (await admin('GET', `/admin/v1/customers/${customerId}/wallet`)).body;
    },
    async rewriteCatalogue(edit) {
      gateway.services.catalogue.close();
      catalogueRewritten = true;
      fs.writeFileSync(config.cataloguePath, edit(fs.readFileSync(config.cataloguePath, 'utf8')));
      return admin('POST', '/admin/v1/catalogue/reload');
    },
    async reset() {
      await settled();
      await Promise.all([gateway.services.requestLogs.flush(), gateway.services.responses.flush()]);
      for (const simulator of gateway.simulators.values()) simulator.reset?.();
      const rewritten = catalogueRewritten;
      if (rewritten) {
        fs.writeFileSync(config.cataloguePath, catalogueAtStart);
        catalogueRewritten = false;
      }
      // This process's heartbeat row stays (without it the gateway fences itself and opens no
      // hold); rows of gateways this file already stopped go. The catalogue's price versions stay
      // too while they are the ones the catalogue loaded after the last reset: no reload since
      // (the loaded catalogue is the same object), no version added (a plan's, an override's).
      const pricesAsLoaded = !rewritten && gateway.services.catalogue.current() === loaded.catalogue && (await versionsMark()) === loaded.versions;
      await resetDatabase(db, { keep: pricesAsLoaded ? ['gateway_instances', 'price_versions'] : ['gateway_instances'] });
      await db('gateway_instances').whereNotNull('stopped_at').delete();
      if (!pricesAsLoaded) {
        const reloaded = await gateway.services.catalogue.reload();
        if (!reloaded.ok) throw new Error(`catalogue reload after reset failed: ${reloaded.errors.join('; ')}`);
        loaded = { catalogue: gateway.services.catalogue.current(), versions: await versionsMark() };
      }
      gateway.services.customers.forgetChanged('anything');
      raw = '';
    },
    async customerWithKey({ allowedModels } = {}) {
      const customer = await admin('POST', '/admin/v1/customers', { name: 'Test customer' });
      if (customer.status !== 201) throw new Error(`customer create failed: ${JSON.stringify(customer.body)}`);
      const key = await admin('POST', `/admin/v1/customers/${customer.body.id}/api-keys`, allowedModels ? { allowed_models: allowedModels } : {});
      if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
      return { customerId: customer.body.id, keyId: key.body.id, key: key.body.key };
    },
    async close(options) {
      open.delete(testGateway);
      await gateway.close(options);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  open.add(testGateway);
  return testGateway;
}
