// What the steps of a request (src/http/app.ts) hand each other, kept in Express's `res.locals`.
import type { Response } from 'express';
import type { Caller } from '../../customers/service.ts';
import type { ParsedBody } from '../body.ts';
import type { ErrorShape } from '../errors.ts';
import type { Exchange } from '../exchange.ts';
import type { AnyHandler } from '../handler.ts';
import type { Spec, SpecOperation } from '../spec.ts';

export interface Surface {
  spec: Spec;
  /** Handlers by operationId (src/http/handlers/index.ts: complete against the generated operations). */
  handlers: Readonly<Record<string, AnyHandler>>;
  /** Operator surface: authenticated by the admin token instead of customer keys. */
  admin?: boolean;
}

export interface RequestState {
  surface: Surface;
  /** The path without its query string, still percent-encoded. */
  path: string;
  /** The endpoint's error shape (Anthropic's on /v1/messages*, OpenAI's elsewhere). */
  shape: ErrorShape;
  exchange: Exchange;
  /** Marks the handler done (the access line and the request log wait for it); idempotent. */
  handled: () => void;
  /** Set by the route step. */
  operation?: SpecOperation;
  params: Record<string, string>;
  /** Set by the authenticate step: the customer key, or null (anonymous, operators). */
  caller: Caller | null;
  /** Set by the read-body step. */
  body?: ParsedBody;
  /** Declared query parameters, coerced by the validate step. */
  query: Record<string, unknown>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      gateway: RequestState;
    }
  }
}

export const stateOf = (res: Response): RequestState => res.locals.gateway;
