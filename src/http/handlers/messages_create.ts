import type { Response } from 'express';
import type { PublicOperations } from '../../types.ts';
import { HANDLED, type Reply, type RequestContext } from '../handler.ts';
import { renderProblem, type AnthropicErrorBody } from '../problem.ts';
import { messagesRequest } from './messages-request.ts';

export async function messages_create(ctx: RequestContext, res: Response): Promise<Reply<PublicOperations, 'messages_create'> | typeof HANDLED> {
  const request = messagesRequest(ctx, res);
  const problem = await ctx.services.messages.create(request, res);
  if (!problem) return HANDLED;
  return { status: problem.status as 400, body: renderProblem(problem, '/v1/messages', ctx.requestId) as AnthropicErrorBody };
}
