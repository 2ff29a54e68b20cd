// What a passthrough protocol (Anthropic Messages, OpenAI Chat Completions) contributes to the
// shared flow in core.ts: the few request fields the gateway reads, the upstream call, a usage
// reader for JSON and SSE answers, and its own error frames. A new protocol is a new folder
// implementing this.
import type { ResolvedModel, ResolvedRoute } from '../../catalogue/store.ts';
import type { ModelGroup, ProviderProtocol, TokenPrice } from '../../catalogue/types.ts';
import type { Caller } from '../../customers/service.ts';
import type { LogFields } from '../../logs/request-logs.ts';
import type { CostLine } from '../../pricing/cost.ts';
import type { Priced } from '../../pricing/priced.ts';
import type { UpstreamError } from '../../providers/types.ts';
import type { Failure } from '../failure.ts';
import type { SseFrame } from './sse.ts';
import type { Adaptation } from './substitution.ts';

export type Headers = Record<string, string | string[] | undefined>;

export interface PassthroughRequest {
  caller: Caller;
  requestId: string;
  /** The operation, for logs and the sweeper's row (messages_create, chat_completions_create). */
  endpoint: string;
  body: Record<string, unknown>;
  /** The model named outside the body (the Gemini API's URL path); else the body's `model`. */
  model?: string;
  /** The body as the client sent it: forwarded byte for byte but for `model`. */
  rawBody: Buffer;
  headers: Headers;
}

/** What the gateway reads from a request before reserving. */
export interface Inspected {
  stream: boolean;
  /** Input tokens, estimated from the request. */
  inputTokens: number;
  /** The most output tokens the answer may carry (max_tokens x n, or the model's limit). */
  maxOutputTokens: number;
}

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer | string;
  /** Header carrying the provider's request id. */
  requestIdHeader: string;
}

/** The final bill of an answer, in the protocol's own usage terms. */
export interface Bill {
  lines: CostLine[];
  /** What the lines were priced from, recorded on the charge's journal entry for reconciliation. */
  priced: Priced;
  log: LogFields;
  /** Some usage was estimated rather than reported by the provider. */
  estimated: boolean;
}

/** Reads one answer's usage on the side while the bytes pass through. */
export interface UsageReader {
  /** A whole JSON answer: the text to send (model rewritten), or undefined when it is not an answer. */
  json(text: string): string | undefined;
  /** One SSE frame as received: what to send on (usually `frame.raw` itself). */
  frame(frame: SseFrame): string;
  /** The answer ended as the protocol says a complete answer ends. */
  complete(): boolean;
  /** An error event arrived after the 200. */
  errored(): boolean;
  /** Output tokens so far, reported or estimated (the overrun rule and checkpoints). */
  outputTokens(): number;
  /** The bill: reported usage, estimates for what is missing, output capped at the request's bound. */
  bill(price: TokenPrice): Bill;
  /** The closing error frame when the gateway cuts this stream, where it depends on what was relayed (else the protocol's). */
  streamError?(type: string, message: string): string;
  /** Bytes that close a stream the provider ended (the `]` of the Gemini API's JSON-array stream); none by default. */
  end?(): string;
}

export interface PassthroughProtocol {
  readonly group: ModelGroup;
  readonly providerProtocols: ReadonlySet<ProviderProtocol>;
  /** Checks the shape of the fields the gateway uses (before the model is looked up); the rest passes unread. */
  check(body: Record<string, unknown>): Failure | undefined;
  /** The model's limits on those fields, and the numbers the reservation needs. */
  inspect(request: PassthroughRequest, model: ResolvedModel): Inspected | Failure;
  /** The provider call for one route (a provider whose credential is minted per call, Vertex's, answers later or fails as an attempt). */
  upstream(request: PassthroughRequest, route: ResolvedRoute, inspected: Inspected): UpstreamRequest | Promise<UpstreamRequest | UpstreamError>;
  /** The routes this request may take, of the model's (a chained request keeps its route), or why none. */
  routes?(routes: ResolvedRoute[]): ResolvedRoute[] | Failure;
  reader(request: PassthroughRequest, inspected: Inspected, publicModel: string, upstreamModel: string, route?: ResolvedRoute): UsageReader;
  /** The client's view of a provider's refusal (status and type kept, text sanitised). */
  failure(error: UpstreamError, route: ResolvedRoute, publicModel: string): Failure;
  /** An error frame in the protocol's stream format (the stream then ends). */
  streamError(type: string, message: string): string;
  /** Headers of the streamed response. */
  streamHeaders: Record<string, string>;
  /** Cost lines of the reservation's upper bound, at the long-context tier the input estimate can reach (`holdPrice`). */
  boundLines(price: TokenPrice, inspected: Inspected): CostLine[];
  /** The protocol's own words for a failure the gateway answers (error codes its clients act on). */
  clientFailure?(failure: Failure): Failure;
  /** Body members that cap the output (max_tokens...): lowered to a substitute model's cap (substitution.ts). */
  readonly outputLimitFields?: readonly string[];
  /** What else a model the gateway substituted cannot take, adapted (messages: the 1M-context beta). */
  adaptToSubstitute?(request: PassthroughRequest, model: ResolvedModel): Adaptation;
}
