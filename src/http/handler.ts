import type { Logger } from '../logger.ts';
import type { Caller } from '../customers/service.ts';
import type { Failure } from '../domain/failure.ts';
import type { Sink } from '../domain/sink.ts';
import type { LogFields } from '../logs/request-logs.ts';
import type { Services } from '../services.ts';
import type { AdminOperations, PublicOperations } from '../types.ts';

/**
 * The validated request as a handler sees it. Typed per operation by PublicContext and
 * AdminContext: the body, path and query parameters as the contract declares them (the validate
 * step admitted nothing else) and the caller as the operation's security makes it.
 */
export interface RequestContext<Body = unknown, Who extends Caller | null = Caller | null, Params = Record<string, string>, Query = Record<string, unknown>> {
  operationId: string;
  requestId: string;
  logger: Logger;
  /** The authenticated customer key; null on an operation a caller may call without one (and on the admin surface). */
  caller: Who;
  /** Path parameters, percent-decoded. */
  params: Params;
  /** Declared query parameters only, coerced to their schema types. */
  query: Query;
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

/** What the handler of GET /v1/responses may do with a WebSocket upgrade (websocket/upgrade.ts makes it). */
export interface WebSocketUpgrade {
  /** Completes the handshake for this caller and serves the connection; the refusal otherwise (400, 503). */
  accept(caller: Caller, requestId: string): Failure | undefined;
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

/** An operation's path parameters as generated (none: an empty record). */
type ParamsOf<Op> = Op extends { parameters: { path: infer P } } ? P : Record<string, never>;

/** An operation's declared query parameters as generated, all of them optional or not as declared (none: an empty record). */
type QueryOf<Op> = Op extends { parameters: { query?: infer Q } }
  ? [NonNullable<Q>] extends [never]
    ? Record<string, never>
    : NonNullable<Q>
  : Record<string, never>;

/**
 * Public operations a caller may call without a key (`{}` among their `security` in openapi/:
 * the authenticate step lets them through with a null caller); every other public operation has
 * its caller. test/unit/http/handler-context.test.ts checks this list against the contract.
 */
export const KEY_OPTIONAL_OPERATIONS = ['health_get', 'readiness_get', 'models_list', 'models_retrieve', 'models_pricing'] as const;

type CallerOf<Id> = Id extends (typeof KEY_OPTIONAL_OPERATIONS)[number] ? Caller | null : Caller;

type ContextOf<Ops, Id extends keyof Ops, Who extends Caller | null> = RequestContext<BodyOf<Ops[Id]>, Who, ParamsOf<Ops[Id]>, QueryOf<Ops[Id]>>;

/** The context of a public operation: its body, parameters and query as generated, and its caller. */
export type PublicContext<Id extends keyof PublicOperations> = ContextOf<PublicOperations, Id, CallerOf<Id>>;

/** The context of an admin operation (operators authenticate with the admin token: no caller). */
export type AdminContext<Id extends keyof AdminOperations> = ContextOf<AdminOperations, Id, null>;

/**
 * A complete handler table for a surface: one handler for every generated operation, each taking
 * its operation's context (or a looser one). src/http/handlers/index.ts `satisfies` it.
 */
export type PublicHandlers = { [Id in keyof PublicOperations]: (ctx: PublicContext<Id>) => Promise<Reply> };
export type AdminHandlers = { [Id in keyof AdminOperations]: (ctx: AdminContext<Id>) => Promise<Reply> };

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
