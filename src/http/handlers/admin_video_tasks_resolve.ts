import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';
import { renderProblem, type ErrorBody } from '../problem.ts';
import { adminVideoTaskToWire } from '../serialize/admin-videos.ts';

type Body = AdminOperations['admin_video_tasks_resolve']['requestBody']['content']['application/json'];

export async function admin_video_tasks_resolve(ctx: RequestContext<Body>): Promise<Reply<AdminOperations, 'admin_video_tasks_resolve'>> {
  const task = await ctx.services.videoReview.resolve(ctx.params.task_id ?? '', ctx.body);
  if ('type' in task) return { status: task.status as 404, body: renderProblem(task, '/admin', ctx.requestId) as ErrorBody };
  return { status: 200, body: adminVideoTaskToWire(task) };
}
