import type { Response } from 'express';
import type { Logger } from '../logger.ts';
import type { Caller } from '../customers/service.ts';
import type { Services } from '../services.ts';

/** The validated request as a handler sees it. */
export interface RequestContext<Body = unknown> {
  operationId: string;
  requestId: string;
  logger: Logger;
  /** The authenticated customer key, or null on anonymous operations. */
  caller: Caller | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
  services: Services;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Returned by handlers that wrote the response themselves (streams). */
export const HANDLED = Symbol('handled');

export type Handler = (ctx: RequestContext, res: Response) => Promise<JsonReply | typeof HANDLED>;

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/**
 * A reply typed by the generated spec: for each declared status, the JSON body that status must
 * carry. A handler returning `Reply<operations, 'models_list'>` cannot drift from the contract.
 */
export type Reply<Ops, Id extends keyof Ops> = Ops[Id] extends { responses: infer R }
  ? { [S in keyof R]: { status: S; body: Json<R[S]>; headers?: Record<string, string> } }[keyof R]
  : never;
