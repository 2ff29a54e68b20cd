import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';
import { freePort, startListening, waitForPort, type RunningProcess } from '../helpers/prism.ts';

type Operation = {
  operationId: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ in: string; name: string; example?: unknown }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
};

/** Replaces every local `$ref` by its target, so the test reads operations as Prism sees them. */
function inline(node: unknown, doc: unknown): any {
  if (Array.isArray(node)) return node.map((n) => inline(n, doc));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref?.startsWith('#/')) return inline(ref.slice(2).split('/').reduce((at: any, key) => at[key], doc), doc);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, doc)]));
}

function operations(bundle: string): Array<{ method: string; path: string; op: Operation; rootSecurity: unknown[] }> {
  const raw = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated', bundle), 'utf8'));
  const doc = { ...raw, paths: inline(raw.paths, raw) };
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path: p, op, rootSecurity: doc.security ?? [] })),
  );
}

function expectedExample(op: Operation): { status: number; body: unknown; text?: true } {
  const status = Object.keys(op.responses).filter((s) => s.startsWith('2')).sort()[0]!;
  const content = op.responses[status]!.content!;
  // GET /metrics answers Prometheus text, not JSON.
  if (!content['application/json']) return { status: Number(status), body: content['text/plain']!.example, text: true };
  const json = content['application/json'];
  return { status: Number(status), body: json.example ?? Object.values(json.examples ?? {})[0]!.value };
}

describe('npm run mock: Prism serves an example for every operation', function () {
  this.timeout(120_000);
  let mock: RunningProcess;
  let publicPort: number;
  let adminPort: number;
  before(async () => {
    publicPort = await freePort();
    adminPort = await freePort();
    mock = await startListening('npm', ['run', '-s', 'mock'], publicPort, { MOCK_PORT: String(publicPort), MOCK_ADMIN_PORT: String(adminPort) });
    await waitForPort(adminPort);
  });
  after(async () => mock?.stop());

  for (const [bundle, portOf] of [['openapi.json', () => publicPort], ['admin.json', () => adminPort]] as const) {
    for (const { method, path: template, op } of operations(bundle)) {
      it(`${bundle}: ${op.operationId}`, async () => {
        const url = template.replace(/\{(\w+)\}/g, (_, name) => String(op.parameters?.find((p) => p.name === name)?.example ?? 'x'));
        const body = op.requestBody?.content['application/json']?.example;
        const secured = (op.security ?? [{ AdminToken: [] }]).some((r) => Object.keys(r).length > 0);
        const response = await fetch(`http://127.0.0.1:${portOf()}${url}`, {
          method,
          headers: { ...(secured ? { authorization: 'Bearer sk-gw-mock' } : {}), ...(body ? { 'content-type': 'application/json' } : {}), prefer: 'code=' + expectedExample(op).status },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const expected = expectedExample(op);
        expect(response.status, await response.clone().text()).to.equal(expected.status);
        expect(expected.text ? await response.text() : await response.json()).to.deep.equal(expected.body);
      });
      it(`${bundle}: ${op.operationId} serves a named example for each error status`, async () => {
        const url = template.replace(/\{(\w+)\}/g, (_, name) => String(op.parameters?.find((p) => p.name === name)?.example ?? 'x'));
        const body = op.requestBody?.content['application/json']?.example;
        for (const [status, response] of Object.entries(op.responses).filter(([s]) => !s.startsWith('2'))) {
          const json = response.content?.['application/json'];
          const examples = Object.entries(json?.examples ?? {});
          expect(examples.length, `${op.operationId} ${status} has no named example`).to.be.greaterThan(0);
          const [name, example] = examples[0]!;
          const answer = await fetch(`http://127.0.0.1:${portOf()}${url}`, {
            method,
            headers: { authorization: 'Bearer sk-gw-mock', 'x-api-key': 'sk-gw-mock', ...(body ? { 'content-type': 'application/json' } : {}), prefer: `code=${status}, example=${name}` },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          expect(answer.status, `${op.operationId} ${status}`).to.equal(Number(status));
          expect(await answer.json()).to.deep.equal(example.value);
        }
      });
    }
  }

  it('streams the SSE example to the official Anthropic SDK, which asks for a stream in the body only', async () => {
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${publicPort}`, apiKey: 'sk-gw-mock', maxRetries: 0 });
    const stream = client.messages.stream({ model: 'sandbox/claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(events[0]).to.equal('message_start');
    expect(events.at(-1)).to.equal('message_stop');
    expect(message.content[0]).to.deep.include({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(message.usage.output_tokens).to.equal(10);
  });
});
