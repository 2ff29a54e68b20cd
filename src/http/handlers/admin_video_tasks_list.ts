import type { AdminOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok, AdminContext } from '../handler.ts';
import { adminVideoTaskToWire } from '../serialize/admin-videos.ts';

export async function admin_video_tasks_list(ctx: AdminContext<'admin_video_tasks_list'>): Promise<Ok<AdminOperations, 'admin_video_tasks_list'> | Failure> {
  const q = ctx.query;
  const { tasks, hasMore } = await ctx.services.videoReview.list({
    limit: q.limit ?? 50,
    ...(q.status ? { status: q.status } : {}),
    ...(q.customer_id ? { customerId: q.customer_id } : {}),
  });
  return { status: 200, body: { object: 'list', data: tasks.map(adminVideoTaskToWire), has_more: hasMore } };
}
