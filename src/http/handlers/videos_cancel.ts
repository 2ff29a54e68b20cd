import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { videoTaskToWire } from '../serialize/videos.ts';

export async function videos_cancel(ctx: PublicContext<'videos_cancel'>): Promise<Ok<PublicOperations, 'videos_cancel'> | Failure> {
  const task = await ctx.services.videos.cancel(ctx.caller, ctx.params.task_id);
  if (task instanceof Failure) return task;
  return { status: 200, body: videoTaskToWire(task) };
}
