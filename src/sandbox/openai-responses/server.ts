// A simulated OpenAI Responses upstream on loopback, for sandbox mode and tests. It speaks the real
// wire format: `event:` + `data:` frames with `sequence_number`, the lifecycle events around the
// output events (reasoning summaries, function call arguments, message text), the terminal event
// with `response.usage` (completed, incomplete, failed), background responses that finish over
// time (GET, cancel), stored responses, chaining by previous_response_id (only responses this
// account made), input_items, input_tokens, compact, `x-request-id`, and OpenAI's error bodies.
// Its base URL includes /v1, as a real provider's `base_url` does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulatedInput } from '../anthropic/responses.ts';
import { openEventStream, sendHalfThenDrop } from '../replies.ts';
import type { Simulator } from '../simulator.ts';
import { answerOf, errorBody, responseObject, simId, tierOf, usageOf, type Event } from './answer.ts';
import { parseResponsesDirectives, responsesRequestText, type ResponsesSimBehaviour } from './directives.ts';
import { routeStored } from './stored.ts';
import { inputItemsOf, type SimResponse } from './store.ts';
import { isRecord } from '../../shared/records.ts';

export interface RecordedResponsesExchange {
  method: string;
  /** Relative to the base URL (`/responses/resp_1/cancel`). */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  raw: string;
  status?: number;
  contentType?: string;
  /** The answer's text as sent (JSON, or every SSE frame). */
  answer: string;
  /** What the answer cost at this provider, whether or not the answer reported it. */
  billed?: ReturnType<typeof usageOf>;
}

export interface OpenAIResponsesSimulator extends Simulator {
  exchanges: RecordedResponsesExchange[];
  /** Responses this account made, by id. */
  responses: Map<string, SimResponse>;
  abortedStreams: number;
  /** Behaviours applied to the next POST /responses, one each, over prompt directives. */
  next(...behaviours: ResponsesSimBehaviour[]): void;
}

const sleep = (ms: number | undefined) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
export const requestId = (): string => simId('req');

export async function startOpenAIResponsesSimulator(options: { port?: number; record?: boolean } = {}): Promise<OpenAIResponsesSimulator> {
  const exchanges: RecordedResponsesExchange[] = [];
  const responses = new Map<string, SimResponse>();
  const queued: ResponsesSimBehaviour[] = [];
  let abortedStreams = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!.replace(/^\/v1/, '');
      const exchange: RecordedResponsesExchange = { method: req.method ?? 'GET', path, headers: req.headers, body: undefined, raw, answer: '' };
      if (options.record !== false) exchanges.push(exchange);
      res.once('finish', () => void (exchange.status = res.statusCode));
      let body: unknown = {};
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          return sendJson(res, exchange, 400, errorBody(400, { message: 'We could not parse the JSON body of your request.' }));
        }
      }
      if (!isRecord(body)) return sendJson(res, exchange, 400, errorBody(400, { message: 'The body must be a JSON object.' }));
      exchange.body = raw ? body : undefined;
      if (!/^Bearer \S+$/.test(req.headers.authorization ?? ''))
        return sendJson(res, exchange, 401, errorBody(401, { message: "You didn't provide an API key." }));
      void route(req, res, exchange, body).catch(() => res.destroy());
    });
  });

  async function route(req: http.IncomingMessage, res: http.ServerResponse, exchange: RecordedResponsesExchange, body: Record<string, unknown>) {
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => sendJson(res, exchange, status, payload, headers);
    if (req.method === 'POST' && exchange.path === '/responses') return create(res, exchange, body);
    if (req.method === 'POST' && exchange.path === '/responses/input_tokens') {
      const chained = chainedTokens(body);
      if (typeof chained !== 'number') return send(400, chained);
      const counted = simulatedInput(responsesRequestText(body), body.input, parseResponsesDirectives(responsesRequestText(body)));
      return send(200, { object: 'response.input_tokens', input_tokens: counted + chained });
    }
    if (req.method === 'POST' && exchange.path === '/responses/compact') return compact(body, send);
    return routeStored(req.method ?? 'GET', exchange.path, responses, send);
  }

  /** Tokens of the context a previous_response_id carries, or OpenAI's refusal when this account does not know it. */
  function chainedTokens(body: Record<string, unknown>): number | ReturnType<typeof errorBody> {
    const previous = body.previous_response_id;
    if (previous === undefined || previous === null) return 0;
    const known = typeof previous === 'string' ? responses.get(previous) : undefined;
    if (known && known.body.store !== false) return known.contextTokens;
    const shown = typeof previous === 'string' ? previous : String(previous);
    return errorBody(400, { message: `Previous response with id '${shown}' not found.`, param: 'previous_response_id', code: 'previous_response_not_found' });
  }

  function compact(body: Record<string, unknown>, send: (status: number, payload: unknown) => void) {
    if (typeof body.model !== 'string')
      return send(400, errorBody(400, { message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' }));
    const chained = chainedTokens(body);
    if (typeof chained !== 'number') return send(400, chained);
    const behaviour = { ...parseResponsesDirectives(responsesRequestText(body)), ...queued.shift() };
    if (behaviour.error) return send(behaviour.error, errorBody(behaviour.error));
    const input = simulatedInput(responsesRequestText(body), body.input, behaviour) + chained;
    const kept = inputItemsOf(body.input, simId).filter((item) => item.type === 'message' && item.role === 'user');
    const answer = { items: [], events: [], outputTokens: behaviour.deltas ?? 12, incomplete: false };
    const usage = usageOf(input, answer, behaviour);
    exchanges.at(-1)!.billed = usage;
    const compaction = {
      type: 'compaction',
      id: simId('cmp'),
      encrypted_content: `gAAAA${Buffer.from(responsesRequestText(body).slice(0, 64)).toString('base64')}`,
    };
    send(200, { id: simId('resp'), object: 'response.compaction', output: [...kept, compaction], created_at: Math.floor(Date.now() / 1000), usage });
  }

  async function create(res: http.ServerResponse, exchange: RecordedResponsesExchange, body: Record<string, unknown>) {
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => sendJson(res, exchange, status, payload, headers);
    if (typeof body.model !== 'string')
      return send(400, errorBody(400, { message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' }));
    const chained = chainedTokens(body);
    if (typeof chained !== 'number') return send(400, chained);
    const behaviour = { ...parseResponsesDirectives(responsesRequestText(body)), ...queued.shift() };
    await sleep(behaviour.firstByteMs);
    if (behaviour.error)
      return send(behaviour.error, errorBody(behaviour.error), behaviour.error === 429 ? { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' } : {});

    const answer = answerOf(behaviour, body);
    const usage = usageOf(simulatedInput(responsesRequestText(body), body.input, behaviour) + chained, answer, behaviour);
    exchange.billed = usage;
    const id = simId('resp');
    const createdMs = Date.now();
    const head = { id, createdAt: Math.floor(createdMs / 1000), body, tier: tierOf(body, behaviour) };
    const status = behaviour.failed ? 'failed' : answer.incomplete ? 'incomplete' : 'completed';
    const final = responseObject(
      { ...head, status },
      {
        output: answer.items,
        error: behaviour.failed ? { code: 'server_error', message: 'The model failed to generate a response.' } : null,
        incomplete_details: answer.incomplete ? { reason: 'max_output_tokens' } : null,
        ...(behaviour.noUsage || (behaviour.failed && behaviour.noUsage) ? {} : { usage }),
      },
    );
    const stored: SimResponse = {
      id,
      body,
      behaviour,
      final,
      answer,
      inputItems: inputItemsOf(body.input, simId),
      contextTokens: usage.total_tokens,
      createdMs,
    };
    if (body.store !== false || body.background === true) responses.set(id, stored);

    if (body.background === true && body.stream !== true) return send(200, responseObject({ ...head, status: 'queued' }));
    if (body.stream !== true) {
      if (behaviour.garbage) return void (res.writeHead(200, { 'content-type': 'application/json' }), res.end('<html>not json</html>'));
      if (behaviour.cutAfter === undefined) return send(200, final);
      exchange.contentType = 'application/json';
      return sendHalfThenDrop(res, final, { 'x-request-id': requestId() });
    }

    const stream = openEventStream(res, { 'x-request-id': requestId() }, () => abortedStreams++);
    exchange.contentType = 'text/event-stream';
    let sequence = 0;
    const write = async (event: Event) => {
      const text = `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`;
      exchange.answer += text;
      if (!behaviour.split) return stream.send(text);
      const cut = Math.floor(text.length / 2);
      await stream.send(text.slice(0, cut));
      await sleep(2);
      await stream.send(text.slice(cut));
    };
    if (behaviour.garbage) return void res.end('this is not an event stream\n');
    await write({ type: 'response.created', response: responseObject({ ...head, status: 'in_progress' }) });
    await write({ type: 'response.in_progress', response: responseObject({ ...head, status: 'in_progress' }) });
    if (behaviour.unknownEvent) await write({ type: 'response.sandbox_note.added', note: 'an event type no client knows yet' });
    let deltas = 0;
    for (const event of answer.events) {
      if (event.type.endsWith('.delta')) {
        await sleep(behaviour.gapMs);
        if (stream.closed) return;
        if (behaviour.cutAfter !== undefined && deltas >= behaviour.cutAfter) return res.destroy();
        if (behaviour.errorEventAfter !== undefined && deltas >= behaviour.errorEventAfter) {
          await write({ type: 'error', code: 'server_error', message: 'The server had an error while processing your request.', param: null });
          return res.end();
        }
        deltas++;
      }
      await write(event);
    }
    await write({ type: behaviour.failed ? 'response.failed' : answer.incomplete ? 'response.incomplete' : 'response.completed', response: final });
    res.end();
  }

  function sendJson(res: http.ServerResponse, exchange: RecordedResponsesExchange, status: number, payload: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(payload);
    exchange.contentType = 'application/json';
    exchange.answer = text;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-request-id': requestId(), ...headers });
    res.end(text);
  }

  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    exchanges,
    responses,
    get abortedStreams() {
      return abortedStreams;
    },
    next: (...behaviours) => void queued.push(...behaviours),
    reset() {
      exchanges.length = 0;
      responses.clear();
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
