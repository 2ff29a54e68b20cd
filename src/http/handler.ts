import type { Logger } from '../logger.ts';
import type { Caller } from '../customers/service.ts';
import type { Failure } from '../domain/failure.ts';
import type { Sink } from '../domain/sink.ts';
import type { LogFields } from '../logs/request-logs.ts';
import type { Services } from '../services.ts';
import type { WebSocketUpgrade } from './websocket/upgrade.ts';

/** The validated request as a handler sees it. */
export interface RequestContext<Body = unknown> {
  operationId: string;
  requestId: string;
  logger: Logger;
  /** The authenticated customer key, or null on anonymous operations. */
  caller: Caller | null;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** Declared query parameters only, coerced to their schema types. */
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
  /** The body's bytes as received (passthrough operations forward them). */
  rawBody: Buffer;
  services: Services;
  /** For replies written piece by piece (streams, proxied bytes). Its signal aborts when the client leaves. */
  sink: Sink;
  /** A WebSocket upgrade (`Upgrade: websocket` on GET /v1/responses), to accept or refuse; undefined on plain HTTP. */
  upgrade?: WebSocketUpgrade | undefined;
  /** The client's address: the peer, or the client a proxy trusted by TRUST_PROXY names (as the access log's `client_ip`). */
  clientAddress: string;
}

/** What a request leaves for its log row: fields known at the end, and the settlement's outcome. */
export interface Outcome {
  log?: LogFields;
  /** Resolves once the request's charge is durable, with the amount charged. */
  settled?: Promise<LogFields>;
}

export interface JsonReply extends Outcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FailedReply extends Outcome {
  failure: Failure;
}

/** The handler wrote the response through the sink. */
export interface StreamedReply extends Outcome {
  streamed: true;
}

export type Reply = JsonReply | FailedReply | StreamedReply | Failure;

export type Handler<Body = unknown> = (ctx: RequestContext<Body>) => Promise<Reply>;

/** The JSON body an operation takes, as openapi-typescript generated it (unknown when it takes none). */
type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : unknown;

/**
 * A complete handler table for a contract: one handler for every generated operation, each taking
 * (at least) the body its operation's schema admits. src/http/handlers/index.ts `satisfies` it.
 */
export type HandlersOf<Ops> = { [Id in keyof Ops]: Handler<BodyOf<Ops[Id]>> };

/**
 * A table entry as the dispatch step calls it. A method's parameter is bivariant, so a handler of
 * a typed body fits: the validate step has admitted only bodies of its operation's schema, and
 * `HandlersOf` checks each handler's body type against that schema's generated type.
 */
export type AnyHandler = { handle(ctx: RequestContext): Promise<Reply> }['handle'];

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type OkFor<R, S> = S extends keyof R
  ? S extends 200 | 201 | 202
    ? { status: S; body: Json<R[S]>; headers?: Record<string, string> } & Outcome
    : never
  : never;

/**
 * A success reply typed by the generated spec: for each declared 2xx status, the JSON body that
 * status must carry. A handler returning `Ok<operations, 'models_list'>` cannot drift from the
 * contract; failures are values mapped to their status in src/http/errors.ts.
 */
export type Ok<Ops, Id extends keyof Ops> = Ops[Id] extends { responses: infer R } ? OkFor<R, keyof R> : never;
