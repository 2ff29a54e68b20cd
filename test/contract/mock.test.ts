import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { expect } from 'chai';
import OpenAI from 'openai';
import { ROOT_DIR } from '../../src/config.ts';
import { freePort, startListening, waitForPort, type RunningProcess } from '../helpers/prism.ts';

type Operation = {
  operationId: string;
  /** A WebSocket upgrade (GET /v1/responses): Prism speaks no WebSocket, so its plain-HTTP answer (426) is what it serves. */
  'x-websocket'?: boolean;
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
  if (ref?.startsWith('#/'))
    return inline(
      ref
        .slice(2)
        .split('/')
        .reduce((at: any, key) => at[key], doc),
      doc,
    );
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, doc)]));
}

function operations(bundle: string): Array<{ method: string; path: string; op: Operation; rootSecurity: unknown[] }> {
  const raw = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated', bundle), 'utf8'));
  const doc = { ...raw, paths: inline(raw.paths, raw) };
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path: p, op, rootSecurity: doc.security ?? [] })),
  );
}

function expectedExample(op: Operation): { status: number; type: string; body: unknown } {
  const status = op['x-websocket']
    ? '426'
    : Object.keys(op.responses)
        .filter((s) => s.startsWith('2'))
        .sort()[0]!;
  const [type, media] = Object.entries(op.responses[status]!.content!)[0]!; // JSON, or the first binary type of a download
  return { status: Number(status), type, body: media.example ?? Object.values(media.examples ?? {})[0]!.value };
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

  it('serves the official OpenAI SDK: videos.create (multipart form data) gets a 2xx, retrieve and list their examples', async () => {
    const posted: string[] = [];
    const recording: typeof fetch = (input, init) => {
      if (init?.method === 'POST') posted.push(init.body instanceof FormData ? 'multipart/form-data' : String(new Headers(init.headers).get('content-type')));
      return fetch(input, init);
    };
    const client = new OpenAI({ apiKey: 'sk-gw-mock', baseURL: `http://127.0.0.1:${publicPort}/v1`, maxRetries: 0, fetch: recording });
    const created = await client.videos.create({ model: 'sandbox/seedance', prompt: 'a cat', seconds: '4', size: '1280x720' });
    expect(posted).to.deep.equal(['multipart/form-data']);
    expect(created.id).to.match(/^vt_/);
    const withReference = await client.videos.create({
      model: 'sandbox/compatible-video',
      prompt: 'a cat',
      input_reference: { image_url: 'https://example.com/a.png' },
    });
    expect(withReference.id).to.match(/^vt_/);
    expect((await client.videos.retrieve(created.id)).object).to.equal('video');
    const page = await client.videos.list({ limit: 2 });
    expect(page.data.map((v) => v.object)).to.deep.equal(['video']);
  });

  it('answers a method a path is not served for with 405, as the gateway does (test/integration/http/methods.test.ts)', async () => {
    for (const [method, path] of [
      ['GET', '/v1/messages'],
      ['POST', '/v1/models'],
      ['PATCH', '/v1/videos'],
    ]) {
      const response = await fetch(`http://127.0.0.1:${publicPort}${path}`, { method, headers: { authorization: 'Bearer sk-gw-mock' } });
      expect(response.status, `${method} ${path}`).to.equal(405);
    }
    expect((await fetch(`http://127.0.0.1:${adminPort}/admin/v1/customers/cus_abc/wallet`, { method: 'POST' })).status).to.equal(405);
  });

  for (const [bundle, portOf] of [
    ['openapi.json', () => publicPort],
    ['admin.json', () => adminPort],
  ] as const) {
    for (const { method, path: template, op } of operations(bundle)) {
      it(`${bundle}: ${op.operationId}`, async () => {
        const url = template.replace(/\{(\w+)\}/g, (_, name) => String(op.parameters?.find((p) => p.name === name)?.example ?? 'x'));
        const body = op.requestBody?.content['application/json']?.example;
        const secured = (op.security ?? [{ AdminToken: [] }]).some((r) => Object.keys(r).length > 0);
        const response = await fetch(`http://127.0.0.1:${portOf()}${url}`, {
          method,
          headers: {
            ...(secured ? { authorization: 'Bearer sk-gw-mock' } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
            prefer: 'code=' + expectedExample(op).status,
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const expected = expectedExample(op);
        expect(response.status, await response.clone().text()).to.equal(expected.status);
        if (expected.type === 'application/json') expect(await response.json()).to.deep.equal(expected.body);
        else expect({ type: response.headers.get('content-type'), body: await response.text() }).to.deep.equal({ type: expected.type, body: expected.body });
      });
      it(`${bundle}: ${op.operationId} serves a named example for each error status`, async () => {
        const url = template.replace(/\{(\w+)\}/g, (_, name) => String(op.parameters?.find((p) => p.name === name)?.example ?? 'x'));
        const body = op.requestBody?.content['application/json']?.example;
        for (const [status, response] of Object.entries(op.responses).filter(([s]) => !s.startsWith('2') && s !== '101')) {
          const json = response.content?.['application/json'];
          const examples = Object.entries(json?.examples ?? {});
          expect(examples.length, `${op.operationId} ${status} has no named example`).to.be.greaterThan(0);
          const [name, example] = examples[0]!;
          const answer = await fetch(`http://127.0.0.1:${portOf()}${url}`, {
            method,
            headers: {
              authorization: 'Bearer sk-gw-mock',
              'x-api-key': 'sk-gw-mock',
              ...(body ? { 'content-type': 'application/json' } : {}),
              prefer: `code=${status}, example=${name}`,
            },
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

  it('streams the chat SSE example to the official OpenAI SDK, which asks for a stream in the body only', async () => {
    const client = new OpenAI({ apiKey: 'sk-gw-mock', baseURL: `http://127.0.0.1:${publicPort}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'Hello!' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).to.equal('Hello! How can I help you today?');
    const completion = await client.chat.completions.create({ model: 'sandbox/chat-model', messages: [{ role: 'user', content: 'Hello!' }] });
    expect(completion.choices[0]!.message.content).to.equal('Hello! How can I help you today?');
  });

  it('serves the OpenAI SDK a streamed chat with its usage chunk when it asks for one', async () => {
    const client = new OpenAI({ apiKey: 'sk-gw-mock', baseURL: `http://127.0.0.1:${publicPort}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'sandbox/chat-model',
      messages: [{ role: 'user', content: 'Hello!' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices).to.deep.equal([]);
    expect(last.usage).to.include({ prompt_tokens: 19 }).and.have.property('completion_tokens').that.is.a('number');
  });

  it('serves the responses JSON and SSE examples to the official OpenAI SDK (responses.create, with and without stream)', async () => {
    const client = new OpenAI({ apiKey: 'sk-gw-mock', baseURL: `http://127.0.0.1:${publicPort}/v1`, maxRetries: 0 });
    const response = await client.responses.create({ model: 'sandbox/responses-model', input: 'Hello!' });
    expect(response.output_text).to.equal('Hello! How can I help you today?');
    const stream = await client.responses.create({ model: 'sandbox/responses-model', input: 'Hello!', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(types[0]).to.equal('response.created');
    expect(types.at(-1)).to.equal('response.completed');
    expect(text).to.equal('Hello!');
  });

  it('serves the Gemini examples to the google-genai SDK (generateContent, the SSE stream, countTokens)', async () => {
    const ai = new GoogleGenAI({ apiKey: 'sk-gw-mock', httpOptions: { baseUrl: `http://127.0.0.1:${publicPort}` } });
    const answer = await ai.models.generateContent({ model: 'gemini-3.1-pro-preview', contents: 'Hello' });
    expect(answer.text).to.equal('Hello from the sandbox model.');
    expect(answer.usageMetadata?.thoughtsTokenCount).to.equal(12);
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-3.1-pro-preview', contents: 'Hello' })) text += chunk.text ?? '';
    expect(text).to.equal('Hello from the sandbox model.');
    expect((await ai.models.countTokens({ model: 'gemini-3.1-pro-preview', contents: 'Hello' })).totalTokens).to.equal(4);
  });

  it("downloads a video through the OpenAI SDK's videos.downloadContent, which sends Accept: application/binary", async () => {
    const client = new OpenAI({ apiKey: 'sk-gw-mock', baseURL: `http://127.0.0.1:${publicPort}/v1`, maxRetries: 0 });
    const content = await client.videos.downloadContent('vt_4fR8kP2mQ9xL7nB3vC6d');
    expect(content.status).to.equal(200);
    expect(content.headers.get('content-type')).to.match(/^video\/mp4/);
    expect((await content.arrayBuffer()).byteLength).to.be.greaterThan(0);
  });

  it('has a video task example for every status a task can show, each served on request', async () => {
    const op = operations('openapi.json').find((o) => o.op.operationId === 'videos_get')!.op;
    const examples = op.responses['200']!.content!['application/json']!.examples!;
    const statuses = Object.values(examples).map((e) => (e.value as { task_status: string }).task_status);
    expect([...new Set(statuses)].sort()).to.deep.equal(['cancelled', 'completed', 'failed', 'in_progress', 'queued', 'review']);
    for (const [name, example] of Object.entries(examples)) {
      const answer = await fetch(`http://127.0.0.1:${publicPort}/v1/videos/vt_4fR8kP2mQ9xL7nB3vC6d`, {
        headers: { authorization: 'Bearer sk-gw-mock', prefer: `example=${name}` },
      });
      expect(answer.status, name).to.equal(200);
      expect(await answer.json()).to.deep.equal(example.value);
    }
  });
});
