// Customers whose key has limits, and the calls that spend, for the key-limit suites.
import { fundedCustomer } from './factories.ts';
import type { TestGateway } from './gateway.ts';

export const HAIKU = 'sandbox/claude-haiku'; // no free quota: every request reserves money
export const CHAT = 'sandbox/chat-model';

/** A funded customer whose key has `limits` (as PATCH /admin/v1/api-keys/{id} takes them). */
export function limitedKey(gateway: Pick<TestGateway, 'admin' | 'customerWithKey'>, limits: Record<string, unknown>, credit = '100.00') {
  return fundedCustomer(gateway, { limits, balance: credit });
}

export function message(url: string, key: string, content: string, options: { maxTokens?: number; stream?: boolean; model?: string } = {}) {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: options.model ?? HAIKU,
      max_tokens: options.maxTokens ?? 100,
      stream: options.stream ?? false,
      messages: [{ role: 'user', content }],
    }),
  });
}

export function chat(url: string, key: string, content: string, maxTokens = 100) {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: CHAT, max_tokens: maxTokens, messages: [{ role: 'user', content }] }),
  });
}

export function video(url: string, key: string, prompt: string) {
  return fetch(`${url}/v1/videos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sandbox/compatible-video', prompt, seconds: 4, resolution: '720p' }),
  });
}

/** Status counts of answered requests, bodies read. */
export async function tally(
  responses: Response[],
): Promise<{ counts: Record<number, number>; bodies: Array<{ status: number; headers: Headers; body: any }> }> {
  const bodies = await Promise.all(
    responses.map(async (r) => ({ status: r.status, headers: r.headers, body: await r.text().then((t) => (t.startsWith('{') ? JSON.parse(t) : t)) })),
  );
  const counts: Record<number, number> = {};
  for (const { status } of bodies) counts[status] = (counts[status] ?? 0) + 1;
  return { counts, bodies };
}
