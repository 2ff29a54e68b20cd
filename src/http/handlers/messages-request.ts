import type { Response } from 'express';
import type { MessagesRequest } from '../../domain/messages/service.ts';
import type { RequestContext } from '../handler.ts';
import type { RequestOutcome } from '../app.ts';

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

/** The parts of an HTTP request the messages service needs; customer credentials are not among them. */
export function messagesRequest(ctx: RequestContext, res: Response): MessagesRequest {
  const outcome: RequestOutcome = {};
  res.locals.outcome = outcome;
  return {
    caller: ctx.caller!, // both operations require a key (spec security)
    body: ctx.body as Record<string, unknown>,
    anthropicVersion: one(ctx.headers['anthropic-version']) || '2023-06-01',
    anthropicBeta: one(ctx.headers['anthropic-beta']) || undefined,
    requestId: ctx.requestId,
    signal: ctx.signal,
    outcome,
  };
}
