// Step 8: the operation's handler, by operationId, and its reply: JSON in one write (checked
// against the contract when VALIDATE_RESPONSES is on), a failure in the endpoint's shape, or
// nothing when the handler streamed through its sink (the SSE relay, proxied files).
import type { Request, RequestHandler, Response } from 'express';
import type { Caller } from '../../customers/service.ts';
import { Failure } from '../../domain/failure.ts';
import type { Sink } from '../../domain/sink.ts';
import type { Logger } from '../../logger.ts';
import type { Services } from '../../services.ts';
import { HttpError } from '../errors.ts';
import { sendFailure, sendJson } from '../exchange.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { responseSink } from '../sink.ts';
import type { WebSocketUpgrade } from '../websocket/upgrade.ts';
import { stateOf, type RequestState } from './state.ts';

export function dispatch(options: {
  logger: Logger;
  services: Services;
  validateResponses: boolean;
  /** The WebSocket upgrade a request carries, when it is one the app takes over. */
  upgradeOf?: (req: Request) => WebSocketUpgrade | undefined;
}): RequestHandler {
  const { logger, services } = options;
  return async (req, res) => {
    const state = stateOf(res);
    const { exchange, operation } = state;
    const handler = state.surface.handlers[operation!.operationId];
    try {
      if (!handler) return sendReply(res, state, new Failure(HttpError.NotImplemented, `${operation!.operationId} is not implemented on this gateway.`));
      const sink = responseSink(res, (chunk) => {
        exchange.firstByteAt ??= process.hrtime.bigint();
        exchange.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      });
      const body = state.body!;
      const ctx = new Context(
        logger,
        operation!.operationId,
        exchange.requestId,
        state.caller,
        state.params,
        state.query,
        req.headers,
        body.value,
        body.raw,
        services,
        sink,
        options.upgradeOf?.(req),
        req.ip ?? req.socket.remoteAddress ?? '',
      );
      sendReply(res, state, await handler(ctx));
    } finally {
      state.handled();
    }
  };

  function sendReply(res: Response, state: RequestState, reply: Reply): void {
    const { exchange } = state;
    exchange.outcome = reply instanceof Failure ? {} : reply;
    if ('streamed' in reply) return;
    const failure = reply instanceof Failure ? reply : 'failure' in reply ? reply.failure : undefined;
    if (failure) return sendFailure(res, failure, state.shape, exchange);
    const { status, body, headers } = reply as { status: number; body: unknown; headers?: Record<string, string> };
    const mismatch =
      options.validateResponses && exchange.operationId && body !== undefined ? state.surface.spec.validateResponse(exchange.operationId, status, body) : null;
    if (mismatch) {
      logger.error({ request_id: exchange.requestId, operation: exchange.operationId, status, mismatch }, 'response does not match the spec');
      const invalid = new Failure(HttpError.ResponseValidationFailed, `Response failed contract validation: ${mismatch}`);
      return sendFailure(res, invalid, state.shape, exchange);
    }
    sendJson(res, status, body, headers, exchange);
  }
}

/** A handler's request context; the request's child logger is made on first use (most never log). */
class Context implements RequestContext {
  private child: Logger | undefined;
  constructor(
    private readonly base: Logger,
    readonly operationId: string,
    readonly requestId: string,
    readonly caller: Caller | null,
    readonly params: Record<string, string>,
    readonly query: Record<string, unknown>,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly body: unknown,
    readonly rawBody: Buffer,
    readonly services: Services,
    readonly sink: Sink,
    readonly upgrade: WebSocketUpgrade | undefined,
    readonly clientAddress: string,
  ) {}

  get logger(): Logger {
    return (this.child ??= this.base.child({ request_id: this.requestId }));
  }
}
