import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type ErrorBody } from '../problem.ts';
import { videoTaskToWire } from '../serialize/videos.ts';

export async function videos_get(ctx: RequestContext): Promise<Reply<PublicOperations, 'videos_get'>> {
  const task = await ctx.services.videos.get(ctx.caller!, ctx.params.task_id ?? '');
  if ('type' in task) return { status: 404, body: renderProblem(task, '/v1/videos', ctx.requestId) as ErrorBody };
  return { status: 200, body: videoTaskToWire(task) };
}
