import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { startGateway, type Gateway } from '../../../src/main.ts';
import type { AnthropicSimulator } from '../../../src/sandbox/anthropic/server.ts';
import type { OpenAIChatSimulator } from '../../../src/sandbox/openai-chat/server.ts';
import { usingPostgres } from '../../helpers/db.ts';
import { routeVia, sampleCatalogueWith } from '../../helpers/catalogue.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

// Issue 35, 4: a session stays on one route of equal priority, on every replica (rendezvous
// hashing: no shared state), while that route is healthy; other sessions spread; failover keeps the
// session's own order. Two gateways share the database, each with its own simulators: the route a
// request took is its provider in the request log.
describe(`session affinity across two gateways on one database (${usingPostgres() ? 'PostgreSQL' : 'PGlite'})`, function () {
  this.timeout(120_000);
  let gateway: TestGateway;
  let second: Gateway;
  let key: string;
  let customerId: string;
  const ROUTES = ['sandbox-anthropic', 'sandbox-anthropic-backup'];

  before(async () => {
    // The sample's two sandbox Anthropic accounts at one priority, for claude-sonnet and the chat model.
    const catalogue = sampleCatalogueWith({
      model: {
        'sandbox/claude-sonnet': (m) => void (routeVia(m, 'sandbox-anthropic-backup').priority = 1),
        'sandbox/chat-model': (m) => void (routeVia(m, 'sandbox-openai-chat-backup').priority = 1),
      },
    });
    gateway = await startTestGateway({ cataloguePath: catalogue });
    const config = {
      ...loadConfig({
        PORT: '0',
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'affinity-replica-')),
        ADMIN_TOKEN: 'adm_test_token',
        VIDEO_POLLER: 'false',
        HOLD_SWEEPER: 'false',
      }),
      cataloguePath: catalogue,
    };
    second = await startGateway(config, { db: gateway.db, logger: createLogger('silent') });
    ({ key, customerId } = await gateway.customerWithKey());
    await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '20.00', reference: 'fund' });
  });
  after(async () => {
    await second?.close();
    await gateway?.close();
  });

  const replicas = () => [gateway.url, second.url];

  async function message(url: string, headers: Record<string, string>): Promise<string> {
    const answer = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'sandbox/claude-sonnet', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status, await answer.clone().text()).to.equal(200);
    await answer.text();
    return answer.headers.get('request-id')!;
  }

  /** The provider (route) each request was served by, from the shared request log (rows come once charges are durable). */
  async function routesOf(requestIds: string[]): Promise<string[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await Promise.all([gateway.services.requestLogs.flush(), second.services.requestLogs.flush()]);
      const rows = (await gateway.admin('GET', `/admin/v1/request-logs?limit=500&customer_id=${customerId}`)).body.data as any[];
      const found = requestIds.map((id) => rows.find((r) => r.request_id === id));
      if (found.every(Boolean)) return found.map((row) => row.provider as string);
      if (Date.now() > deadline) throw new Error(`request log rows missing: ${requestIds.filter((_, i) => !found[i]).join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('pins one Claude Code session to one route across 20 requests on both replicas, logged with the session id', async () => {
    const session = '7d1c0f9e-8a4b-4e53-9c2a-1f6b3d5e7a90';
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await message(replicas()[i % 2]!, { 'x-claude-code-session-id': session }));
    const routes = await routesOf(ids);
    expect(new Set(routes).size, routes.join(',')).to.equal(1);
    expect(ROUTES).to.include(routes[0]);
    const rows = await gateway.requestLogs(`customer_id=${customerId}`, 20);
    expect(rows.filter((r) => ids.includes(r.request_id)).every((r) => r.session_id === session)).to.equal(true);
  });

  it('sends other sessions elsewhere (at least one of several lands on each route), each pinned; Codex and generic headers count too', async () => {
    const firstRoute = new Map<string, string>();
    for (let s = 0; s < 12; s++) {
      const header = [{ name: 'session_id' }, { name: 'x-session-id' }, { name: 'x-claude-code-session-id' }][s % 3]!.name;
      const ids = [await message(gateway.url, { [header]: `session-${s}` }), await message(second.url, { [header]: `session-${s}` })];
      const routes = await routesOf(ids);
      expect(routes[0], `session-${s}`).to.equal(routes[1]);
      firstRoute.set(`session-${s}`, routes[0]!);
    }
    expect(new Set(firstRoute.values())).to.deep.equal(new Set(ROUTES));
  });

  it('fails a session over to its next route when its own fails, and comes back once it is healthy', async () => {
    // A session pinned to the primary account: fail that account once; the answer comes from the backup.
    let session = '';
    for (let s = 0; !session; s++) {
      const [route] = await routesOf([await message(gateway.url, { 'x-session-id': `probe-${s}` })]);
      if (route === 'sandbox-anthropic') session = `probe-${s}`;
    }
    const primary = gateway.simulators.get('sandbox-anthropic') as AnthropicSimulator;
    primary.next({ error: 529 });
    const failedOver = await message(gateway.url, { 'x-session-id': session });
    const back = await message(gateway.url, { 'x-session-id': session });
    expect(await routesOf([failedOver, back])).to.deep.equal(['sandbox-anthropic-backup', 'sandbox-anthropic']);
  });

  it('pins a chat session the same way (the passthrough layer orders every protocol’s routes)', async () => {
    const chat = (url: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', session_id: 'codex-conversation-1' },
        body: JSON.stringify({ model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await chat(replicas()[i % 2]!);
      expect(answer.status).to.equal(200);
      await answer.text();
      ids.push(answer.headers.get('request-id')!);
    }
    const routes = await routesOf(ids);
    expect(new Set(routes).size, routes.join(',')).to.equal(1);
    expect(routes[0]).to.match(/^sandbox-openai-chat/);
    const simulators = [gateway, second].flatMap((g) => [
      g.simulators.get('sandbox-openai-chat'),
      g.simulators.get('sandbox-openai-chat-backup'),
    ]) as OpenAIChatSimulator[];
    expect(simulators.filter((s) => s.requests.length > 0)).to.have.length(2); // one account per replica: the same one on both
  });
});
