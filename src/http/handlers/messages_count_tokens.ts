import type { Response } from 'express';
import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type AnthropicErrorBody } from '../problem.ts';
import { messagesRequest } from './messages-request.ts';

/** Free of charge: nothing is reserved or settled; the request log records it. */
export async function messages_count_tokens(ctx: RequestContext, res: Response): Promise<Reply<PublicOperations, 'messages_count_tokens'>> {
  const result = await ctx.services.messages.countTokens(messagesRequest(ctx, res));
  if ('status' in result) return { status: result.status as 400, body: renderProblem(result, '/v1/messages', ctx.requestId) as AnthropicErrorBody };
  return { status: 200, body: result };
}
