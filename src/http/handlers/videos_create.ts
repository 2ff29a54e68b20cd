import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type ErrorBody } from '../problem.ts';

export async function videos_create(ctx: RequestContext): Promise<Reply<PublicOperations, 'videos_create'>> {
  const key = ctx.headers['idempotency-key'];
  const result = await ctx.services.videos.create({
    caller: ctx.caller!,
    body: ctx.body as Record<string, unknown>,
    idempotencyKey: Array.isArray(key) ? key[0] : key,
  });
  if ('status' in result) return { status: result.status as 400, body: renderProblem(result, '/v1/videos', ctx.requestId) as ErrorBody };
  return { status: 202, body: { task_id: result.taskId } };
}
