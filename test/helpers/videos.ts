// Calls on /v1/videos as a customer makes them, and the contract check of everything the gateway
// sent to the simulated video upstreams and everything they answered.
import { expect } from 'chai';
import type { Exchange } from '../../src/sandbox/json-server.ts';
import type { TestGateway } from './gateway.ts';
import { validateUpstreamRequest, validateUpstreamResponse, type UpstreamApi } from './upstream-contract.ts';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

export function videoCalls(gateway: TestGateway, key: string) {
  const auth = (apiKey = key) => ({ authorization: `Bearer ${apiKey}` });
  const calls = {
    create: async (body: Record<string, unknown>, headers: Record<string, string> = {}, apiKey = key) =>
      answer(
        await fetch(`${gateway.url}/v1/videos`, {
          method: 'POST',
          headers: { ...auth(apiKey), 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      ),
    /** multipart/form-data, as the OpenAI SDK sends it (fields given with their bracketed names). */
    createForm: async (fields: Array<[string, string]>, apiKey = key) => {
      const form = new FormData();
      for (const [name, value] of fields) form.append(name, value);
      return answer(await fetch(`${gateway.url}/v1/videos`, { method: 'POST', headers: auth(apiKey), body: form }));
    },
    get: async (id: string, apiKey = key) => answer(await fetch(`${gateway.url}/v1/videos/${id}`, { headers: auth(apiKey) })),
    list: async (query = '', apiKey = key) => answer(await fetch(`${gateway.url}/v1/videos${query}`, { headers: auth(apiKey) })),
    cancel: async (id: string, apiKey = key) => answer(await fetch(`${gateway.url}/v1/videos/${id}`, { method: 'DELETE', headers: auth(apiKey) })),
    content: (id: string, options: { query?: string; headers?: Record<string, string>; apiKey?: string; signal?: AbortSignal } = {}) =>
      fetch(`${gateway.url}/v1/videos/${id}/content${options.query ?? ''}`, {
        headers: { ...auth(options.apiKey), ...options.headers },
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    /** Runs the poller until the task leaves the live statuses; the task as the customer sees it. */
    finish: async (id: string, apiKey = key) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        await gateway.services.videoWorker.processBatch();
        const task = (await calls.get(id, apiKey)).body;
        const live = ['queued', 'in_progress'].includes(task.task_status ?? task.status);
        if (!live || Date.now() > deadline) return task;
        await new Promise((r) => setTimeout(r, 30));
      }
    },
  };
  return calls;
}

/**
 * The Vertex simulator serves three Google APIs on one port: the token endpoint, Vertex AI under
 * its project and location, and the Cloud Storage JSON API. Each exchange, with its path relative
 * to its API's base.
 */
/**
 * Waits until no provider is paused after a concurrency refusal. A refusal pauses the provider for
 * a poll interval (100 ms in tests), and a create within it waits in the queue too; a test about
 * what a create sent to the provider gets back starts once the pause is over.
 */
export async function pauseEnded(gateway: TestGateway): Promise<void> {
  for (let i = 0; (await gateway.db('video_provider_queues').whereRaw('paused_until > now()')).length > 0; i++) {
    if (i > 250) throw new Error('the provider pause did not end within 5 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function vertexApiOf(path: string): { api: UpstreamApi; path: string } {
  const vertex = /^\/v1\/projects\/[^/]+\/locations\/[^/]+(\/.*)$/.exec(path);
  if (vertex) return { api: 'vertex-veo', path: vertex[1]! };
  if (path.startsWith('/storage/v1/')) return { api: 'google-cloud-storage', path: path.slice('/storage/v1'.length) };
  return { api: 'google-oauth2-token', path };
}

type Contract = UpstreamApi | ((path: string) => { api: UpstreamApi; path: string });

const CONTRACTS: Record<string, Contract> = {
  'openai-videos': 'openai-videos',
  'ark-video': 'ark-video-tasks',
  'minimax-video-v2': 'minimax-video-v2',
  'dashscope-video': 'dashscope-video',
  'kling-video': 'kling-video',
  'vertex-veo': vertexApiOf,
};

/** Problems of one exchange with a simulated upstream, as the contract names them. */
export function exchangeProblems(contract: Contract, exchange: Exchange): string[] {
  const call = `${exchange.method} ${exchange.path}`;
  const { api, path } = typeof contract === 'string' ? { api: contract, path: exchange.path } : contract(exchange.path);
  const request = validateUpstreamRequest(api, exchange.method, path, exchange.requestBody, exchange.requestBody ? exchange.requestContentType : undefined, {
    documentedOnly: true,
  });
  // A 206 is the 200 representation, in part (HTTP range requests): the contracts declare only 200.
  const status = exchange.status === 206 ? 200 : exchange.status;
  const response = exchange.offContract ? [] : validateUpstreamResponse(api, exchange.method, path, status, exchange.body, exchange.contentType);
  return [...request.map((p) => `${call} request: ${p}`), ...response.map((p) => `${call} -> ${exchange.status}: ${p}`)];
}

/**
 * Every request the gateway sent to a simulated video upstream (only documented fields, valid
 * values) and every answer the simulator gave (except deliberately broken ones) is on contract.
 * Downloads from the simulated supplier CDNs (/assets/...) are not part of any API.
 */
export function expectVideoUpstreamsOnContract(gateway: TestGateway): void {
  const providers = gateway.services.catalogue.current().providers;
  const problems: string[] = [];
  for (const [id, simulator] of gateway.simulators) {
    const api = CONTRACTS[providers.get(id)?.protocol ?? ''];
    const exchanges = (simulator as { exchanges?: Exchange[] }).exchanges;
    if (!api || !exchanges) continue;
    for (const exchange of exchanges) if (!exchange.path.startsWith('/assets/')) problems.push(...exchangeProblems(api, exchange));
  }
  expect(problems).to.deep.equal([]);
}
