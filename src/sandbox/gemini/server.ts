// A simulated Gemini API on loopback, for sandbox mode and tests: Google AI Studio's
// (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent`, `:countTokens`,
// `GET /v1beta/models[/{model}]`, the key in `x-goog-api-key` or `?key=`) or, with `vertex`, Vertex
// AI's (`/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:...`, a bearer token from
// the simulated service account of src/sandbox/vertex-veo/service-account.ts). Like Google's: SSE
// frames `data: {...}\r\n\r\n` with `alt=sse`, the JSON-array stream without it, usageMetadata in
// every chunk with the totals so far, Google's error envelope and refusals (refusals.ts), and the
// failure modes a gateway must survive (the chat simulator's prompt switches: errors with
// RetryInfo, cut streams, an error chunk after the 200, no usage, slow first bytes).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulatedTokens } from '../anthropic/responses.ts';
import { parseChatDirectives, requestText, type ChatSimBehaviour } from '../openai-chat/directives.ts';
import { openEventStream, sendHalfThenDrop } from '../replies.ts';
import type { Simulator } from '../simulator.ts';
import { googleError } from '../vertex-veo/errors.ts';
import { createTokenIssuer, makeServiceAccountKey } from '../vertex-veo/service-account.ts';
import { answerOf, chunkOf, partsOf, responseId, usageOf, type UsageMetadata } from './answer.ts';
import { notFound, refusal, servedModel } from './refusals.ts';
import { isRecord } from '../../shared/records.ts';

export interface RecordedGeminiExchange {
  method: string;
  /** The path and query string as received. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  /** The body's bytes as received. */
  raw: string;
  status: number;
  /** The answer: JSON, or the stream's text. */
  answer: unknown;
  contentType: string;
  /** The usage the answer cost at this provider (its last chunk's), whether or not it was reported. */
  billed?: UsageMetadata;
}

export interface GeminiSimulator extends Simulator {
  exchanges: RecordedGeminiExchange[];
  abortedStreams: number;
  /** Behaviours applied to the next requests, one each, over prompt directives. */
  next(...behaviours: ChatSimBehaviour[]): void;
}

const VERTEX_PREFIX = '/v1/projects/sandbox-project/locations/us-central1';
const METHOD = /^\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
const STUDIO = /^\/v1beta\/models\/([^/:]+)(?::(generateContent|streamGenerateContent|countTokens))?$/;
const sleep = (ms: number | undefined) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
const textOf = (body: Record<string, unknown>) => requestText({ system: body.systemInstruction, messages: body.contents, tools: body.tools });

export async function startGeminiSimulator(options: { vertex?: boolean; record?: boolean } = {}): Promise<GeminiSimulator> {
  const exchanges: RecordedGeminiExchange[] = [];
  const queued: ChatSimBehaviour[] = [];
  const account = makeServiceAccountKey('sandbox-project', 'gemini-sandbox', '');
  const issuer = createTokenIssuer(account);
  let abortedStreams = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const exchange: RecordedGeminiExchange = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: undefined,
        raw,
        status: 0,
        answer: undefined,
        contentType: '',
      };
      if (options.record !== false) exchanges.push(exchange);
      void route(req, res, raw, exchange).catch(() => res.destroy());
    });
  });

  function send(res: http.ServerResponse, exchange: RecordedGeminiExchange, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    Object.assign(exchange, { status, answer: body, contentType: 'application/json; charset=UTF-8' });
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
  const sendAnswer = (res: http.ServerResponse, exchange: RecordedGeminiExchange, answer: { status: number; body: unknown }) =>
    send(res, exchange, answer.status, answer.body);

  async function route(req: http.IncomingMessage, res: http.ServerResponse, raw: string, exchange: RecordedGeminiExchange) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (options.vertex && req.method === 'POST' && url.pathname === '/token') {
      const form = Object.fromEntries(new URLSearchParams(raw));
      return sendAnswer(res, exchange, issuer.exchange(form));
    }
    const call = options.vertex
      ? url.pathname.startsWith(`${VERTEX_PREFIX}/`)
        ? METHOD.exec(url.pathname.slice(VERTEX_PREFIX.length))
        : null
      : STUDIO.exec(url.pathname);
    if (!call) return send(res, exchange, 404, googleError(404, 'The requested URL was not found on this server.').body);
    const authorized = options.vertex ? issuer.authorized(req.headers.authorization) : Boolean(req.headers['x-goog-api-key'] || url.searchParams.get('key'));
    if (!authorized)
      return sendAnswer(
        res,
        exchange,
        options.vertex
          ? googleError(
              401,
              'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
            )
          : googleError(
              403,
              "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
            ),
      );
    const [model, method] = [decodeURIComponent(call[1]!), call[2]];
    if (!method) {
      if (req.method !== 'GET') return send(res, exchange, 404, googleError(404, 'The requested URL was not found on this server.').body);
      return servedModel(model) ? send(res, exchange, 200, modelOf(model)) : sendAnswer(res, exchange, notFound(model, 'get'));
    }
    if (req.method !== 'POST') return send(res, exchange, 404, googleError(404, 'The requested URL was not found on this server.').body);
    let body: unknown;
    try {
      body = JSON.parse(raw || '{}');
    } catch {
      return sendAnswer(res, exchange, googleError(400, 'Invalid JSON payload received. Unexpected token.'));
    }
    if (!isRecord(body)) return sendAnswer(res, exchange, googleError(400, 'Invalid JSON payload received. Expected an object.'));
    exchange.body = body;
    if (!servedModel(model)) return sendAnswer(res, exchange, notFound(model, method));
    const refused = refusal(body, method);
    if (refused) return sendAnswer(res, exchange, refused);
    if (method === 'countTokens') {
      const counted = isRecord(body.generateContentRequest) ? body.generateContentRequest : body;
      const total = simulatedTokens(textOf(counted));
      return send(res, exchange, 200, { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] });
    }
    const behaviour = { ...parseChatDirectives(textOf(body)), ...queued.shift() };
    await sleep(behaviour.firstByteMs);
    if (behaviour.error) return sendError(res, exchange, behaviour.error);
    await generate(
      res,
      exchange,
      model,
      body,
      behaviour,
      method === 'streamGenerateContent' ? (url.searchParams.get('alt') === 'sse' ? 'sse' : 'array') : 'json',
    );
  }

  function sendError(res: http.ServerResponse, exchange: RecordedGeminiExchange, status: number) {
    if (status !== 429)
      return sendAnswer(
        res,
        exchange,
        googleError(status, status >= 500 ? 'An internal error has occurred. Please retry.' : 'Request contains an invalid argument.'),
      );
    const body = googleError(429, 'You exceeded your current quota, please check your plan and billing details.').body as { error: Record<string, unknown> };
    body.error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }];
    return send(res, exchange, 429, body);
  }

  async function generate(
    res: http.ServerResponse,
    exchange: RecordedGeminiExchange,
    model: string,
    body: Record<string, unknown>,
    behaviour: ChatSimBehaviour,
    framing: 'json' | 'sse' | 'array',
  ) {
    const answer = answerOf(body, behaviour);
    const prompt = simulatedTokens(textOf(body));
    const id = responseId();
    exchange.billed = usageOf(prompt, answer.pieces.length, behaviour);
    const usage = (sent: number) => (behaviour.noUsage ? undefined : usageOf(prompt, sent, behaviour));
    if (framing === 'json') {
      const whole = chunkOf(model, id, partsOf(answer, answer.pieces), true, usage(answer.pieces.length));
      if (behaviour.cutAfter === undefined) return send(res, exchange, 200, whole);
      return sendHalfThenDrop(res, whole, {});
    }
    Object.assign(exchange, { status: 200, contentType: framing === 'sse' ? 'text/event-stream' : 'application/json; charset=UTF-8', answer: '' });
    // Without alt=sse the same chunks go as one JSON array, written as they come.
    const stream = openEventStream(res, framing === 'sse' ? {} : { 'content-type': 'application/json; charset=UTF-8' }, () => abortedStreams++);
    let first = true;
    const write = (chunk: Record<string, unknown>) => {
      const json = JSON.stringify(chunk);
      const text = framing === 'sse' ? `data: ${json}\r\n\r\n` : `${first ? '[' : ',\r\n'}${json}`;
      first = false;
      exchange.answer += text;
      return stream.send(text);
    };
    const pieces = answer.call ? [answer.pieces] : answer.pieces.map((piece) => [piece]);
    let sent = 0;
    for (const [i, group] of pieces.entries()) {
      await sleep(behaviour.gapMs);
      if (stream.closed) return;
      sent += group.length;
      const last = i === pieces.length - 1;
      await write(chunkOf(model, id, partsOf(answer, group), last, usage(sent)));
      if (!last && behaviour.cutAfter !== undefined && sent >= behaviour.cutAfter) return res.destroy();
      if (!last && behaviour.errorEventAfter !== undefined && sent >= behaviour.errorEventAfter) {
        await write(googleError(500, 'An internal error has occurred. Please retry.').body as Record<string, unknown>);
        break;
      }
    }
    if (framing === 'array') {
      exchange.answer += ']';
      await stream.send(']');
    }
    res.end();
  }

  function modelOf(model: string) {
    return {
      name: `models/${model}`,
      version: '001',
      displayName: model,
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 65_536,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
    };
  }

  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  account.file.token_uri = `${origin}/token`;
  return {
    baseUrl: options.vertex ? `${origin}${VERTEX_PREFIX}` : origin,
    ...(options.vertex ? { credential: JSON.stringify(account.file) } : {}),
    exchanges,
    get abortedStreams() {
      return abortedStreams;
    },
    next: (...behaviours) => void queued.push(...behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
