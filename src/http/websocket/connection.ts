// One Responses WebSocket, after its 101: each `response.create` message is a turn, run one at a
// time in the order received. A turn is a POST /v1/responses in all but transport: the key is
// checked again (a key revoked meanwhile ends the connection), the body is the message without its
// envelope (client-event.ts) with the connection's remembered context spliced in (continuation.ts),
// and it goes through the responses service with a sink that turns the relayed SSE frames into
// messages (turn-sink.ts): the same hold, settle, ownership, pinning, limits and request log row
// (endpoint `responses_create`) as over HTTP. A warm-up (`generate: false`) is answered here, free.
// A refused turn is an `error` message; the next turn runs as usual. The connection closes with
// 1001 when it reaches its age (WEBSOCKET_MAX_AGE_SECONDS) or the gateway drains, after the turn
// in flight, whose hold the relay ends (cut and settled for what was delivered past the grace).
import type http from 'node:http';
import type { WebSocket } from 'ws';
import type { Caller } from '../../customers/service.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { Failure } from '../../domain/failure.ts';
import { passthroughFailures } from '../../domain/passthrough/errors.ts';
import type { PassthroughRequest } from '../../domain/passthrough/protocol.ts';
import { readClientEvent, type ClientTurn } from '../../domain/responses/socket/client-event.ts';
import { Continuation, OutputCollector } from '../../domain/responses/socket/continuation.ts';
import { warmupEvents } from '../../domain/responses/socket/warmup.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import { randomBase62 } from '../../shared/ids.ts';
import type { AccessLog } from '../access-log.ts';
import { authenticateCustomer, type AuthPolicy } from '../auth.ts';
import { HttpError } from '../errors.ts';
import { startExchange, type Exchange } from '../exchange.ts';
import { errorEvent } from './error-event.ts';
import { TurnSink } from './turn-sink.ts';

export interface ConnectionDeps {
  services: Services;
  logger: Logger;
  accessLog: AccessLog;
  /** How long a connection lives (WEBSOCKET_MAX_AGE_SECONDS). */
  maxAgeMs: number;
  /** Bounds the messages waiting behind the turn in flight, and the remembered context. */
  maxBytes: number;
}

export interface Connection {
  /** Resolves once the socket closed. */
  closed: Promise<void>;
  /** Closes the connection after its turn in flight (shutdown). */
  drain(): void;
}

/** The key is presented as on POST /v1/responses. */
const POLICY: AuthPolicy = { anonymousAllowed: false, schemes: new Set(['ApiKeyBearer']) };

const lifetimeReached = new Failure(HttpError.WebSocketLifetimeReached, '');
/** How long a closing connection waits for the client's close frame. */
const CLOSE_WAIT_MS = 2_000;

export function serveConnection(ws: WebSocket, context: { caller: Caller; req: http.IncomingMessage; requestId: string }, deps: ConnectionDeps): Connection {
  const { logger } = deps;
  const continuation = new Continuation(deps.maxBytes);
  const waiting: Array<{ text: string; bytes: number }> = [];
  let waitingBytes = 0;
  let running = false;
  let closing: { code: number; reason: string; notice?: Failure } | undefined;
  /** The last turn's settlement while it runs (a closing connection waits for it). */
  let settling: Promise<unknown> | undefined;
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  const age = setTimeout(() => stop(1001, 'connection lifetime reached', lifetimeReached), deps.maxAgeMs).unref();
  void closed.then(() => {
    clearTimeout(age);
    waiting.length = 0;
  });
  ws.on('error', (error: Error) => logger.debug({ request_id: context.requestId, err: error.message }, 'websocket closed on a protocol error'));

  ws.on('message', (data: Buffer, binary: boolean) => {
    if (closing) return;
    if (binary)
      return void ws.send(errorEvent(passthroughFailures.invalid(null, 'Send each event as a JSON text message.'), context.requestId, undefined).text);
    if (waitingBytes + data.length > deps.maxBytes) {
      const busy = passthroughFailures.invalid(null, 'Too many messages are waiting behind the turn in flight; send the next when it ends.');
      return void ws.send(errorEvent(busy, context.requestId, undefined).text);
    }
    waiting.push({ text: data.toString('utf8'), bytes: data.length });
    waitingBytes += data.length;
    void pump();
  });

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    while (waiting.length > 0 && !closing && ws.readyState === ws.OPEN) {
      const next = waiting.shift()!;
      waitingBytes -= next.bytes;
      await turn(next.text);
    }
    // A closing connection is an open request for the drain until its last charge is durable and
    // its log row queued: the shutdown closes the request logs only after the drain.
    if (closing) await settling?.catch(() => undefined);
    running = false;
    if (closing) finishClose();
  }

  function stop(code: number, reason: string, notice?: Failure): void {
    closing ??= { code, reason, ...(notice ? { notice } : {}) };
    if (!running) finishClose();
  }

  function finishClose(): void {
    if (ws.readyState !== ws.OPEN) return;
    if (closing!.notice) ws.send(errorEvent(closing!.notice, context.requestId, undefined).text);
    ws.close(closing!.code, closing!.reason);
    // A client that does not answer the close frame is not waited for (ws would wait 30 s): the drain counts this socket.
    setTimeout(() => ws.terminate(), CLOSE_WAIT_MS).unref();
  }

  /** One turn, from its message to its request log row; never throws. */
  async function turn(text: string): Promise<void> {
    const { exchange, handled } = startExchange(`req_${randomBase62(24)}`);
    exchange.operationId = 'responses_create';
    let status = 200;
    let sink: TurnSink | undefined;
    const refuse = (failure: Failure, streamId?: string) => {
      const event = errorEvent(failure, exchange.requestId, streamId);
      if (ws.readyState === ws.OPEN) ws.send(event.text);
      status = event.status;
      exchange.errorType = event.type;
    };
    try {
      const read = readClientEvent(text);
      if (read instanceof Failure) return refuse(read);
      const caller = await reauthenticate(exchange);
      if (caller instanceof Failure) {
        refuse(caller, read.streamId);
        return stop(1008, 'the API key was refused');
      }
      const expanded = continuation.expand(read);
      if (typeof expanded.body.model === 'string') exchange.model = expanded.body.model;
      const request: PassthroughRequest = {
        caller,
        requestId: exchange.requestId,
        endpoint: 'responses_create',
        body: expanded.body,
        rawBody: Buffer.from(expanded.text),
        headers: context.req.headers,
      };
      if (read.warmup) return await warmup(read, expanded, request, (s) => (sink = s), refuse, exchange);
      const collector = new OutputCollector();
      sink = new TurnSink(ws, read.streamId, (event) => collector.observe(event));
      const result = await deps.services.responses.create(request, sink);
      exchange.outcome = { log: result.log, ...(result.settled ? { settled: result.settled } : {}) };
      if (result.failure) return refuse(result.failure, read.streamId);
      const output = collector.output();
      if (collector.id && output) continuation.answered(collector.id, expanded, output);
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      logger.error({ request_id: exchange.requestId, err: error }, unavailable ? 'database unavailable' : 'websocket turn failed');
      if (!sink?.started) refuse(new Failure(unavailable ? HttpError.DatabaseUnavailable : HttpError.Internal, ''));
      status = unavailable ? 503 : 500;
    } finally {
      sink?.finish();
      exchange.bytes = sink?.bytes ?? 0;
      exchange.firstByteAt = sink?.firstByteAt;
      handled();
      deps.accessLog.turn(context.req, exchange, status, ws.readyState !== ws.OPEN);
      settling = exchange.outcome.settled;
    }
  }

  /** The key, as it is now (revoked, expired or suspended since the upgrade: refused). */
  async function reauthenticate(exchange: Exchange): Promise<Caller | Failure> {
    const auth = await authenticateCustomer(context.req.headers, POLICY, deps.services.customers);
    if (auth.kind === 'caller') return (exchange.caller = auth.caller);
    if (auth.kind === 'rejected') {
      if (auth.who) exchange.refusedCaller = auth.who;
      return auth.failure;
    }
    return new Failure(HttpError.InvalidApiKey, '');
  }

  async function warmup(
    read: ClientTurn,
    expanded: ClientTurn,
    request: PassthroughRequest,
    made: (sink: TurnSink) => void,
    refuse: (failure: Failure, streamId?: string) => void,
    exchange: Exchange,
  ): Promise<void> {
    const checked = await deps.services.responses.warmup(request);
    if (checked instanceof Failure) return refuse(checked, read.streamId);
    const sink = new TurnSink(ws, read.streamId, () => undefined);
    made(sink);
    const id = continuation.warmup(expanded);
    for (const event of warmupEvents(id, checked.model, read.body)) void sink.event(JSON.stringify(event));
    exchange.outcome = { log: { model: checked.model, stream: true, cost: 0n } };
  }

  return { closed, drain: () => stop(1001, 'the gateway is restarting; reconnect') };
}
