// One request as the HTTP layer follows it from arrival to its log lines, and the two ways a
// non-streamed answer leaves: JSON, or a failure in the endpoint's error shape.
import type { ServerResponse } from 'node:http';
import type { Caller } from '../customers/service.ts';
import type { Failure } from '../domain/failure.ts';
import { renderFailure, type ErrorShape } from './errors.ts';
import type { Outcome } from './handler.ts';

export interface Exchange {
  requestId: string;
  /** The id a trusted proxy sent (`x-request-id`), recorded beside ours. */
  clientRequestId: string | undefined;
  started: bigint;
  operationId: string | undefined;
  caller: Caller | null;
  /** A key that exists but was refused (suspended customer, expired key): its owner, for the access log. */
  refusedCaller?: { customerId: string; keyId: string };
  model: string | null;
  errorType: string | null;
  outcome: Outcome;
  bytes: number;
  /** When the first body byte went to the client (time to first byte of streams). */
  firstByteAt: bigint | undefined;
  /** Resolves when the handler is done (the client may have left long before). */
  done: Promise<void>;
}

/** A new exchange, and the function that marks its handler done. */
export function startExchange(requestId: string, clientRequestId?: string): { exchange: Exchange; handled: () => void } {
  let handled!: () => void;
  const done = new Promise<void>((resolve) => (handled = resolve));
  const exchange: Exchange = {
    requestId,
    clientRequestId,
    started: process.hrtime.bigint(),
    operationId: undefined,
    caller: null,
    model: null,
    errorType: null,
    outcome: {},
    bytes: 0,
    firstByteAt: undefined,
    done,
  };
  return { exchange, handled };
}

export function sendFailure(res: ServerResponse, failure: Failure, shape: ErrorShape, exchange: Exchange): void {
  const reply = renderFailure(failure, shape, exchange.requestId);
  const error = reply.body.error;
  exchange.errorType = 'type' in error ? error.type : error.status; // Google's shape names its canonical status
  sendJson(res, reply.status, reply.body, reply.headers, exchange);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> | undefined, exchange: Exchange): void {
  if (res.headersSent || res.destroyed) return;
  if (status === 304 || status === 204) return void res.writeHead(status, headers).end(); // Not Modified, No Content: no body
  const text = JSON.stringify(body);
  if (res.req.method !== 'HEAD') exchange.bytes += Buffer.byteLength(text); // Node sends no body to a HEAD
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
