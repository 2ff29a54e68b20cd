import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { adminVideoTaskToWire } from '../serialize/admin-videos.ts';

export async function admin_video_tasks_get(ctx: AdminContext<'admin_video_tasks_get'>): Promise<Ok<AdminOperations, 'admin_video_tasks_get'> | Failure> {
  const task = await ctx.services.videoReview.get(ctx.params.task_id);
  if (task instanceof Failure) return task;
  return { status: 200, body: adminVideoTaskToWire(task) };
}
