import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { adminVideoTaskToWire } from '../serialize/admin-videos.ts';

type Body = AdminOperations['admin_video_tasks_resolve']['requestBody']['content']['application/json'];

export async function admin_video_tasks_resolve(ctx: RequestContext<Body>): Promise<Ok<AdminOperations, 'admin_video_tasks_resolve'> | Failure> {
  const task = await ctx.services.videoReview.resolve(ctx.params.task_id ?? '', ctx.body);
  if (task instanceof Failure) return task;
  return { status: 200, body: adminVideoTaskToWire(task) };
}
