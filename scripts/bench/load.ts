// The load generator: one undici Pool per target with as many keep-alive connections as workers,
// closed-loop workers, and per-request timings taken on this process's monotonic clock. The same
// code drives the direct upstream, the gateway and the peer, on either API: Anthropic Messages
// (`POST /v1/messages`, `event:` frames ending with `message_stop`) or OpenAI Chat Completions
// (`POST /v1/chat/completions`, `data:` frames ending with `data: [DONE]`).
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export type Api = 'messages' | 'chat';
export const API_PATHS: Record<Api, string> = { messages: '/v1/messages', chat: '/v1/chat/completions' };

export interface Target {
  name: string;
  /** Origin, e.g. http://127.0.0.1:8080 */
  origin: string;
  headers: Record<string, string>;
  model: string;
  api: Api;
}

export interface RequestSample {
  ok: boolean;
  status: number;
  ms: number;
}

export interface StreamSample {
  ok: boolean;
  status: number;
  /** Request start to the first byte of the body. */
  ttfbMs: number;
  /** Arrival gaps between consecutive content deltas. */
  gapsMs: number[];
  deltas: number;
  /** The stream's own end: `message_stop` (messages) or `data: [DONE]` (chat). */
  sawStop: boolean;
  /** Body of a failed answer (first 300 bytes), or why it broke off, for the report. */
  error?: string;
}

/** A request body for the target's API; simulator directives ride in the prompt. */
export function requestBody(target: Pick<Target, 'api' | 'model'>, prompt: string, stream = false): string {
  return JSON.stringify({ model: target.model, max_tokens: 1024, stream, messages: [{ role: 'user', content: prompt }] });
}

export function makePool(target: Target, connections: number): Pool {
  return new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
}

const post = (pool: Pool, target: Target, body: string) =>
  pool.request({ path: API_PATHS[target.api], method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body });

export async function sendOnce(pool: Pool, target: Target, body: string): Promise<RequestSample> {
  const started = performance.now();
  try {
    const res = await post(pool, target, body);
    await res.body.arrayBuffer();
    return { ok: res.statusCode === 200, status: res.statusCode, ms: performance.now() - started };
  } catch {
    return { ok: false, status: 0, ms: performance.now() - started };
  }
}

/** `count` requests one after another (concurrency 1). */
export async function sequential(pool: Pool, target: Target, body: string, count: number): Promise<RequestSample[]> {
  const samples: RequestSample[] = [];
  for (let i = 0; i < count; i++) samples.push(await sendOnce(pool, target, body));
  return samples;
}

/** `concurrency` closed-loop workers for `durationMs`; returns every completed request. */
export async function closedLoop(pool: Pool, target: Target, body: string, concurrency: number, durationMs: number): Promise<{ samples: RequestSample[]; elapsedMs: number }> {
  const samples: RequestSample[] = [];
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) samples.push(await sendOnce(pool, target, body));
    }),
  );
  return { samples, elapsedMs: performance.now() - started };
}

/**
 * `ratePerSecond` requests started on a fixed schedule for `durationMs`, whatever the answers'
 * pace (open loop); returns every completed request. At the same
 * rate, the work a target does per second whatever its load (timers, batched writes) weighs the
 * same on each request, so CPU time per request compares across targets and runs.
 */
export async function fixedRate(pool: Pool, target: Target, body: string, ratePerSecond: number, durationMs: number): Promise<{ samples: RequestSample[]; elapsedMs: number }> {
  const samples: RequestSample[] = [];
  const started = performance.now();
  const sent: Array<Promise<void>> = [];
  for (let n = 0; n < (ratePerSecond * durationMs) / 1000; n++) {
    const due = started + (n * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(sendOnce(pool, target, body).then((sample) => void samples.push(sample)));
  }
  await Promise.all(sent);
  return { samples, elapsedMs: performance.now() - started };
}

/** `count` requests by `concurrency` closed-loop workers, however long they take. */
export async function fixedCount(pool: Pool, target: Target, body: string, concurrency: number, count: number): Promise<RequestSample[]> {
  const samples: RequestSample[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        samples.push(await sendOnce(pool, target, body));
      }
    }),
  );
  return samples;
}

/** What one SSE frame is: a content delta, the stream's end, or neither. */
export function classifyFrame(api: Api, frame: string): 'delta' | 'stop' | 'other' {
  if (api === 'messages') {
    if (frame.startsWith('event: content_block_delta')) return 'delta';
    return frame.startsWith('event: message_stop') ? 'stop' : 'other';
  }
  const data = frame.split('\n').find((line) => line.startsWith('data:'))?.slice(5).trim();
  if (data === undefined) return 'other';
  if (data === '[DONE]') return 'stop';
  try {
    const content = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]?.delta?.content;
    return typeof content === 'string' && content.length > 0 ? 'delta' : 'other';
  } catch {
    return 'other';
  }
}

/** One streamed request, timing the first body byte and every content delta's arrival. */
export async function streamOnce(pool: Pool, target: Target, body: string): Promise<StreamSample> {
  const started = performance.now();
  const sample: StreamSample = { ok: false, status: 0, ttfbMs: Number.NaN, gapsMs: [], deltas: 0, sawStop: false };
  let pending = '';
  try {
    const res = await post(pool, target, body);
    sample.status = res.statusCode;
    let lastDelta: number | undefined;
    for await (const chunk of res.body) {
      const now = performance.now();
      if (Number.isNaN(sample.ttfbMs)) sample.ttfbMs = now - started;
      pending += (chunk as Buffer).toString('utf8');
      if (res.statusCode !== 200) continue;
      let end = pending.indexOf('\n\n');
      while (end >= 0) {
        const kind = classifyFrame(target.api, pending.slice(0, end));
        pending = pending.slice(end + 2);
        if (kind === 'delta') {
          sample.deltas++;
          if (lastDelta !== undefined) sample.gapsMs.push(now - lastDelta);
          lastDelta = now;
        } else if (kind === 'stop') sample.sawStop = true;
        end = pending.indexOf('\n\n');
      }
    }
    if (res.statusCode !== 200) sample.error = pending.slice(0, 300);
    else if (!sample.sawStop) sample.error = `ended without its last event after ${sample.deltas} deltas${pending ? `: ${pending.slice(0, 200)}` : ''}`;
  } catch (error) {
    sample.error = `${(error as Error).message} after ${sample.deltas} deltas`;
  }
  sample.ok = sample.status === 200 && sample.sawStop;
  return sample;
}

/**
 * `count` streams, each on its own connection, opened `staggerMs` apart (0: all at once). With the
 * stagger a stream's length divided by `count`, `count` streams are open together once the ramp is
 * up, without measuring a thundering herd of simultaneous first requests instead.
 */
export function concurrentStreams(pool: Pool, target: Target, body: string, count: number, staggerMs = 0): Promise<StreamSample[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      if (staggerMs > 0) await new Promise((r) => setTimeout(r, i * staggerMs));
      return streamOnce(pool, target, body);
    }),
  );
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
