// One HTTP client's cost on the messages passthrough path, for `npm run bench:clients`: run in a
// process of its own so its CPU time is the client's alone. Each request is what the relay does
// with its upstream: POST the body with the provider's headers, wait for the headers under a
// first-byte timer, take the body chunk by chunk as it arrives (here counted, there written to the
// client). undici as src/providers/http.ts calls it (keep-alive Agent, an emitter as the abort
// signal); got as src/providers/task-client.ts configures it (got.stream, an AbortSignal per call).
//   node scripts/bench/client-worker.mjs <undici|got> <upstream origin>   -> one JSON line
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import got from 'got';
import { Agent, request } from 'undici';

const [client, origin] = process.argv.slice(2);
const url = `${origin}/v1/messages`;
const headers = { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-bench-upstream-credential', 'content-type': 'application/json' };
const body = (prompt, stream) => JSON.stringify({ model: 'claude-bench', max_tokens: 1024, stream, messages: [{ role: 'user', content: prompt }] });
const TIMEOUTS = { connect: 10_000, firstByte: 120_000, idle: 300_000 };

const agent = new Agent({ connect: { timeout: TIMEOUTS.connect }, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
class Attempt extends EventEmitter {
  aborted = false;
  abort = () => {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  };
}
async function viaUndici(payload) {
  const attempt = new Attempt();
  const timer = setTimeout(attempt.abort, TIMEOUTS.firstByte);
  let response;
  try {
    response = await request(url, { method: 'POST', body: payload, headers, signal: attempt, dispatcher: agent, headersTimeout: TIMEOUTS.firstByte + 1000, bodyTimeout: TIMEOUTS.idle });
  } finally {
    clearTimeout(timer);
  }
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  return response.statusCode === 200 && bytes > 0;
}

const gotClient = got.extend({
  agent: { http: new http.Agent({ keepAlive: true }) },
  timeout: { connect: TIMEOUTS.connect, response: TIMEOUTS.firstByte, socket: TIMEOUTS.idle },
  retry: { limit: 0 },
  throwHttpErrors: false,
  followRedirect: false,
  decompress: false,
});
async function viaGot(payload) {
  const controller = new AbortController();
  const stream = gotClient.stream.post(url, { body: payload, headers, signal: controller.signal });
  const status = await new Promise((resolve, reject) => {
    stream.once('response', (response) => resolve(response.statusCode));
    stream.once('error', reject);
  });
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.length;
  return status === 200 && bytes > 0;
}

const call = client === 'got' ? viaGot : viaUndici;
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function sequential(payload, count) {
  const times = [];
  let failures = 0;
  const cpu = cpuMicros();
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    if (!(await call(payload))) failures++;
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  return { cpuUsPerRequest: (cpuMicros() - cpu) / count, p50Ms: times[Math.floor(count / 2)], failures };
}

async function closedLoop(payload, concurrency, ms) {
  let done = 0;
  let failures = 0;
  const cpu = cpuMicros();
  const began = performance.now();
  const until = began + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        if (await call(payload).catch(() => false)) done++;
        else failures++;
      }
    }),
  );
  const elapsed = performance.now() - began;
  return { requestsPerSecond: (done / elapsed) * 1000, cpuUsPerRequest: (cpuMicros() - cpu) / Math.max(1, done + failures), failures };
}

const json = body('Say hello.', false);
const streamed = body('Say hello. [[sim deltas=16]]', true);
await sequential(json, 500); // warm-up: connections open, code optimised
await closedLoop(json, 50, 1000);
const result = {
  client,
  c1: await sequential(json, 3000),
  c50: await closedLoop(json, 50, 5000),
  c50Stream: await closedLoop(streamed, 50, 5000),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
