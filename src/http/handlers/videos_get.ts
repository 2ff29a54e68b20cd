import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { videoTaskToWire } from '../serialize/videos.ts';

export async function videos_get(ctx: PublicContext<'videos_get'>): Promise<Ok<PublicOperations, 'videos_get'> | Failure> {
  const task = await ctx.services.videos.get(ctx.caller, ctx.params.task_id);
  if (task instanceof Failure) return task;
  return { status: 200, body: videoTaskToWire(task), headers: { 'openai-poll-after-ms': String(ctx.services.videos.pollAfterMs(task)) } };
}
