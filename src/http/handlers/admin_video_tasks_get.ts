import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type ErrorBody } from '../problem.ts';
import { adminVideoTaskToWire } from '../serialize/admin-videos.ts';

export async function admin_video_tasks_get(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_video_tasks_get'>> {
  const task = await ctx.services.videoReview.get(ctx.params.task_id ?? '');
  if ('type' in task) return { status: 404, body: renderProblem(task, '/admin', ctx.requestId) as ErrorBody };
  return { status: 200, body: adminVideoTaskToWire(task) };
}
