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

const CONTRACTS: Record<string, UpstreamApi> = {
  'openai-videos': 'openai-videos',
  'ark-video': 'ark-video-tasks',
  'minimax-video-v2': 'minimax-video-v2',
  'dashscope-video': 'dashscope-video',
  'kling-video': 'kling-video',
};

/** Problems of one exchange with a simulated upstream, as the contract names them. */
export function exchangeProblems(api: UpstreamApi, exchange: Exchange): string[] {
  const call = `${exchange.method} ${exchange.path}`;
  const request = validateUpstreamRequest(api, exchange.method, exchange.path, exchange.requestBody, exchange.requestBody ? 'application/json' : undefined, {
    documentedOnly: true,
  });
  // A 206 is the 200 representation, in part (HTTP range requests): the contracts declare only 200.
  const status = exchange.status === 206 ? 200 : exchange.status;
  const response = exchange.offContract ? [] : validateUpstreamResponse(api, exchange.method, exchange.path, status, exchange.body, exchange.contentType);
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
