// A simulated Anthropic Messages upstream on loopback, for sandbox mode and tests. It speaks the
// real wire format: `event:` lines on every frame, cumulative usage in message_delta, `ping`,
// Anthropic error bodies with a request id, the API's refusals (refusals.ts), answers cut at
// max_tokens, and the failure modes a gateway must survive.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../simulator.ts';
import { parseDirectives, requestText, type SimBehaviour } from './directives.ts';
import { anthropicErrorType } from '../../providers/anthropic/errors.ts';
import { refusal, ROUTES } from './refusals.ts';
import { answerOf, id, outputTokens, simulatedInput } from './responses.ts';
import { openEventStream, sendHalfThenDrop } from '../replies.ts';

export interface RecordedRequest {
  path: string;
  /** The path with its query, as requested (`/v1/messages?beta=true`). */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface AnthropicSimulator extends Simulator {
  requests: RecordedRequest[];
  /** Streams whose client (the gateway) went away before the end. */
  abortedStreams: number;
  /** Behaviours applied to the next requests, one each, before prompt directives. */
  next(...behaviours: SimBehaviour[]): void;
}

const sleep = (ms: number | undefined) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

function frame(event: Record<string, unknown> & { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** `record: false` keeps no request history (benchmarks send hundreds of thousands). */
export async function startAnthropicSimulator(options: { port?: number; record?: boolean } = {}): Promise<AnthropicSimulator> {
  const requests: RecordedRequest[] = [];
  const queued: SimBehaviour[] = [];
  let abortedStreams = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return sendError(res, 400, 'invalid JSON');
      }
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (options.record !== false) requests.push({ path, url: req.url ?? '', headers: req.headers, body });
      const behaviour = { ...parseDirectives(requestText(body)), ...queued.shift() };
      void answer(req, res, path, body, behaviour).catch(() => res.destroy());
    });
  });

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: Record<string, unknown>, behaviour: SimBehaviour) {
    if (!req.headers['x-api-key']) return sendError(res, 401, 'missing x-api-key');
    if (!ROUTES.has(path)) return sendError(res, 404, `no route ${path}`);
    const refused = refusal(path, req.headers, body);
    if (refused) return sendError(res, 400, refused);
    await sleep(behaviour.firstByteMs);
    if (behaviour.error) {
      const leak = behaviour.leaky
        ? ' upstream https://internal-llm-7.corp.example.com:8443/v1/messages failed at 10.2.3.4:443 (request id: req_011CVXabcdef123456, key sk-ant-api03-secretvalue123)'
        : '';
      return sendError(res, behaviour.error, `simulated ${behaviour.error}${leak}`);
    }
    if (behaviour.garbage) {
      res.writeHead(200, { 'content-type': body.stream === true && path === '/v1/messages' ? 'text/event-stream' : 'application/json' });
      return res.end(body.stream === true ? 'this is not an event stream\n' : '<html>not json</html>');
    }
    const inputTokens = simulatedInput(requestText(body), [body.system, body.messages], behaviour);
    if (path === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: inputTokens });
    const { blocks, stopReason } = answerOf(behaviour, body.max_tokens as number);
    const usage = reportedUsage(behaviour, inputTokens, behaviour.reportOutput ?? outputTokens(blocks));
    const message = { id: id('msg'), type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
    if (body.stream !== true) {
      const payload = { ...message, content: blocks.map((b) => b.final), stop_reason: stopReason, ...(behaviour.noUsage ? {} : { usage }) };
      if (behaviour.cutAfter === undefined) return sendJson(res, 200, payload);
      return sendHalfThenDrop(res, payload, { 'request-id': id('req') });
    }
    const stream = openEventStream(res, { 'request-id': id('req') }, () => abortedStreams++);
    const send = stream.send;
    const write = async (event: Record<string, unknown> & { type: string }) => {
      const text = frame(event);
      if (behaviour.split) {
        const cut = Math.floor(text.length / 2);
        await send(text.slice(0, cut));
        await sleep(2);
        await send(text.slice(cut));
      } else await send(text);
    };
    const startUsage = behaviour.noUsage ? undefined : { ...usage, output_tokens: 1, server_tool_use: null };
    await write({ type: 'message_start', message: { ...message, content: [], stop_reason: null, ...(startUsage ? { usage: startUsage } : {}) } });
    let sent = 0;
    for (const [index, block] of blocks.entries()) {
      await write({ type: 'content_block_start', index, content_block: block.start });
      if (index === 0) await write({ type: 'ping' });
      for (const delta of block.deltas) {
        await sleep(behaviour.gapMs);
        if (stream.closed) return;
        await write({ type: 'content_block_delta', index, delta });
        sent++;
        if (behaviour.cutAfter !== undefined && sent >= behaviour.cutAfter) return res.destroy();
        if (behaviour.errorEventAfter !== undefined && sent >= behaviour.errorEventAfter) {
          await write({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
          return res.end();
        }
      }
      await write({ type: 'content_block_stop', index });
    }
    const delta = { stop_reason: stopReason, stop_sequence: null };
    const rounds = behaviour.messageDeltas ?? 1;
    for (let round = 1; round <= rounds; round++) {
      // Cumulative totals: each message_delta repeats the whole count so far, never an increment.
      const output = Math.ceil((usage.output_tokens * round) / rounds);
      const final = {
        ...usage,
        output_tokens: output,
        ...(behaviour.usageNulls ? { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null } : {}),
      };
      delete (final as Record<string, unknown>).cache_creation;
      await write({ type: 'message_delta', delta, ...(behaviour.noUsage ? {} : { usage: final }) });
    }
    await write({ type: 'message_stop' });
    res.end();
  }

  function reportedUsage(behaviour: SimBehaviour, inputTokens: number, outputTokens: number) {
    const writes = behaviour.cacheWrite ?? 0;
    const writes1h = behaviour.cacheWrite1h ?? 0;
    return {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      cache_creation_input_tokens: writes,
      cache_read_input_tokens: behaviour.cacheRead ?? 0,
      cache_creation: { ephemeral_5m_input_tokens: writes - writes1h, ephemeral_1h_input_tokens: writes1h },
      server_tool_use:
        behaviour.webSearch || behaviour.webFetch ? { web_search_requests: behaviour.webSearch ?? 0, web_fetch_requests: behaviour.webFetch ?? 0 } : null,
      service_tier: behaviour.tier ?? 'standard',
    };
  }

  function sendJson(res: http.ServerResponse, status: number, payload: unknown) {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': id('req') });
    res.end(text);
  }

  function sendError(res: http.ServerResponse, status: number, message: string) {
    const requestId = id('req');
    const headers: Record<string, string> = status === 429 || status === 529 ? { 'retry-after': '1' } : {};
    const text = JSON.stringify({ type: 'error', error: { type: anthropicErrorType(status), message }, request_id: requestId });
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId, ...headers });
    res.end(text);
  }

  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    get abortedStreams() {
      return abortedStreams;
    },
    next: (...behaviours) => void queued.push(...behaviours),
    reset() {
      requests.length = 0;
      queued.length = 0;
      abortedStreams = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
