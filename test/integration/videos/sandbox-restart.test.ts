// A sandbox video finished before a restart can still be downloaded after it, for as long as its
// `expires_at` says: the simulated providers keep their tasks in DATA_DIR (as real providers keep
// them on their side), so a restarted gateway's new simulators still know them, on new ports.
// One task per sandbox video protocol, the gateway stopped and a new one started on the same
// DATA_DIR and database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { startGateway, type Gateway } from '../../../src/main.ts';
import { getTestDatabase, resetDatabase, usingPostgres } from '../../helpers/db.ts';
import { SAMPLE_CATALOGUE, type TestGateway } from '../../helpers/gateway.ts';
import { videoCalls } from '../../helpers/videos.ts';

const QUICK = '[[sim queued_ms=0 running_ms=0]]';
const TASKS: Array<Record<string, unknown>> = [
  { model: 'sandbox/compatible-video', prompt: `a cat ${QUICK}`, seconds: 4 },
  { model: 'sandbox/seedance', prompt: `a cat ${QUICK}` },
  { model: 'sandbox/h3', prompt: `a cat ${QUICK}` },
  { model: 'sandbox/wan2.7-t2v', prompt: `a cat ${QUICK}` },
  { model: 'sandbox/kling-v2-6', prompt: `a cat ${QUICK}` },
  { model: 'sandbox/veo-3.1', prompt: `a cat ${QUICK}` },
];

describe(`sandbox videos survive a gateway restart (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let dataDir: string;
  let gateway: Gateway | undefined;
  after(async () => {
    await gateway?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const config = {
      ...loadConfig({
        PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_TOKEN: 'adm_test_token',
        VIDEO_POLLER: 'false',
        HOLD_SWEEPER: 'false',
        VIDEO_POLL_INTERVAL_MS: '100',
      }),
      cataloguePath: SAMPLE_CATALOGUE,
    };
    return startGateway(config, { db: await getTestDatabase(), logger: createLogger('silent') });
  };
  const admin = async (g: Gateway, method: string, pathname: string, body?: unknown) =>
    (
      await fetch(g.url + pathname, {
        method,
        headers: { authorization: `Bearer ${g.adminToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    ).json() as Promise<any>;

  it('downloads each finished task after the restart, byte for byte as before it', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-restart-'));
    await resetDatabase(await getTestDatabase());
    gateway = await start();
    const customer = await admin(gateway, 'POST', '/admin/v1/customers', { name: 'Restart' });
    await admin(gateway, 'POST', `/admin/v1/customers/${customer.id}/credits`, { amount: '50.00', reference: 'fund' });
    const { key } = await admin(gateway, 'POST', `/admin/v1/customers/${customer.id}/api-keys`, {});
    const before = videoCalls(gateway as TestGateway, key);
    const finished: Array<{ id: string; model: string; bytes: Buffer; expiresAt: number | null }> = [];
    for (const body of TASKS) {
      const created = await before.create(body);
      expect(created.status, `${String(body.model)}: ${JSON.stringify(created.body)}`).to.equal(202);
      const task = await before.finish(created.body.id);
      expect(task.task_status, String(body.model)).to.equal('completed');
      const content = await before.content(task.id);
      expect(content.status, String(body.model)).to.equal(200);
      finished.push({ id: task.id, model: String(body.model), bytes: Buffer.from(await content.arrayBuffer()), expiresAt: task.expires_at });
    }

    await gateway.close();
    gateway = await start();
    const after = videoCalls(gateway as TestGateway, key);
    for (const task of finished) {
      if (task.expiresAt !== null) expect(task.expiresAt * 1000, task.model).to.be.greaterThan(Date.now());
      const content = await after.content(task.id);
      expect(content.status, `${task.model}: ${content.status === 200 ? '' : await content.text()}`).to.equal(200);
      expect(Buffer.from(await content.arrayBuffer()).equals(task.bytes), task.model).to.equal(true);
      const ranged = await after.content(task.id, { headers: { range: 'bytes=10-19' } });
      expect(ranged.status, task.model).to.equal(206);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(task.bytes.subarray(10, 20)), task.model).to.equal(true);
    }
  });
});
