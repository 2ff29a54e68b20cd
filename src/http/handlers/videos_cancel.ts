import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type ErrorBody } from '../problem.ts';
import { videoTaskToWire } from '../serialize/videos.ts';

export async function videos_cancel(ctx: RequestContext): Promise<Reply<PublicOperations, 'videos_cancel'>> {
  const task = await ctx.services.videos.cancel(ctx.caller!, ctx.params.task_id ?? '');
  if ('type' in task) return { status: task.status as 404, body: renderProblem(task, '/v1/videos', ctx.requestId) as ErrorBody };
  return { status: 200, body: videoTaskToWire(task) };
}
