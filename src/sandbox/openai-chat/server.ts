// A simulated OpenAI Chat Completions upstream on loopback, for sandbox mode and tests. It speaks
// the real wire format: `data:`-only SSE frames ending with `data: [DONE]`, the usage chunk
// (`choices: []`) only with `stream_options.include_usage` (other chunks then carry
// `"usage": null`), tool-call deltas, `x-request-id`, OpenAI's error bodies and refusals, and the
// failure modes a gateway must survive (429 with retry-after, 5xx, cut streams, errors mid-stream).
// Its base URL includes /v1, as a real provider's `base_url` does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../simulator.ts';
import { simulatedInput } from '../anthropic/responses.ts';
import { parseChatDirectives, requestText, type ChatSimBehaviour } from './directives.ts';
import { refusal } from './refusals.ts';
import { answerOf, chatId, completionMessage, errorBody, finishReason, firstDelta, pieceDelta, requestId, usageOf } from './responses.ts';
import { openEventStream, sendHalfThenDrop } from '../replies.ts';
import { isRecord } from '../../shared/records.ts';

export interface RecordedChatRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body's bytes as received. */
  raw: string;
  /** What the answer cost at this provider, whether or not the answer reported it. */
  billed?: ReturnType<typeof usageOf>;
}

export interface OpenAIChatSimulator extends Simulator {
  requests: RecordedChatRequest[];
  /** Streams whose client (the gateway) went away before the end. */
  abortedStreams: number;
  /** Behaviours applied to the next requests, one each, over prompt directives. */
  next(...behaviours: ChatSimBehaviour[]): void;
}

const sleep = (ms: number | undefined) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** `record: false` keeps no request history (benchmarks send many). */
export async function startOpenAIChatSimulator(options: { port?: number; record?: boolean } = {}): Promise<OpenAIChatSimulator> {
  const requests: RecordedChatRequest[] = [];
  const queued: ChatSimBehaviour[] = [];
  let abortedStreams = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return sendJson(res, 400, errorBody(400, { message: 'We could not parse the JSON body of your request.' }));
      }
      if (!isRecord(body)) return sendJson(res, 400, errorBody(400, { message: 'The body must be a JSON object.' }));
      const path = (req.url ?? '').split('?')[0] ?? '';
      const recorded: RecordedChatRequest = { path, headers: req.headers, body, raw };
      if (options.record !== false) requests.push(recorded);
      const behaviour = { ...parseChatDirectives(requestText(body)), ...queued.shift() };
      void answer(req, res, path, body, behaviour, recorded).catch(() => res.destroy());
    });
  });

  async function answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
    body: Record<string, unknown>,
    behaviour: ChatSimBehaviour,
    recorded: RecordedChatRequest,
  ) {
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) return sendJson(res, 401, errorBody(401, { message: "You didn't provide an API key." }));
    if (path !== '/v1/chat/completions') return sendJson(res, 404, errorBody(404, { message: `Invalid URL (${req.method} ${path})`, code: null }));
    const refused = refusal(body);
    if (refused) return sendJson(res, 400, refused);
    await sleep(behaviour.firstByteMs);
    if (behaviour.error)
      return sendJson(
        res,
        behaviour.error,
        errorBody(behaviour.error),
        behaviour.error === 429 ? { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' } : {},
      );

    const choices = typeof body.n === 'number' && body.n > 0 ? body.n : 1;
    const answerText = answerOf(behaviour);
    const usage = usageOf(simulatedInput(requestText(body), body.messages, behaviour), answerText, choices, behaviour);
    recorded.billed = usage;
    const tier = body.service_tier === 'priority' || body.service_tier === 'flex' ? body.service_tier : 'default';
    const [id, created] = [chatId(), Math.floor(Date.now() / 1000)];
    const head = (object: string) => ({ id, object, created, model: body.model, service_tier: tier, system_fingerprint: 'fp_sandbox' });

    if (body.stream !== true) {
      const completion = {
        ...head('chat.completion'),
        choices: Array.from({ length: choices }, (_, index) => ({
          index,
          message: completionMessage(answerText),
          logprobs: null,
          finish_reason: finishReason(answerText),
        })),
        ...(behaviour.noUsage ? {} : { usage }),
      };
      if (behaviour.cutAfter === undefined) return sendJson(res, 200, completion);
      return sendHalfThenDrop(res, completion, { 'x-request-id': requestId() });
    }

    const stream = openEventStream(res, { 'x-request-id': requestId() }, () => abortedStreams++);
    const send = stream.send;
    const write = async (data: string) => {
      const text = `data: ${data}\n\n`;
      if (!behaviour.split) return send(text);
      const cut = Math.floor(text.length / 2);
      await send(text.slice(0, cut));
      await sleep(2);
      await send(text.slice(cut));
    };
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    const chunk = (choiceList: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ ...head('chat.completion.chunk'), choices: choiceList, ...(includeUsage ? { usage: null } : {}), ...extra });
    const each = (delta: (index: number) => Record<string, unknown>, finish: string | null = null) =>
      Array.from({ length: choices }, (_, index) => ({ index, delta: delta(index), logprobs: null, finish_reason: finish }));

    await write(chunk(each(() => firstDelta(answerText))));
    let sent = 0;
    for (const piece of answerText.pieces) {
      for (let index = 0; index < choices; index++) {
        await sleep(behaviour.gapMs);
        if (stream.closed) return;
        await write(chunk([{ index, delta: pieceDelta(answerText, piece), logprobs: null, finish_reason: null }]));
        sent++;
        if (behaviour.cutAfter !== undefined && sent >= behaviour.cutAfter) return res.destroy();
        if (behaviour.errorEventAfter !== undefined && sent >= behaviour.errorEventAfter) {
          await write(JSON.stringify(errorBody(500)));
          return res.end();
        }
      }
    }
    await write(chunk(each(() => ({}), finishReason(answerText))));
    if (includeUsage && !behaviour.noUsage) await write(chunk([], { usage }));
    await write('[DONE]');
    res.end();
  }

  function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-request-id': requestId(), ...headers });
    res.end(text);
  }

  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
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
