import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { videoTaskListToWire } from '../serialize/videos.ts';

export async function videos_list(ctx: PublicContext<'videos_list'>): Promise<Ok<PublicOperations, 'videos_list'> | Failure> {
  const { after, limit, order } = ctx.query;
  const page = await ctx.services.videos.list(ctx.caller, { ...(after ? { after } : {}), limit: limit ?? 20, order: order ?? 'desc' });
  if (page instanceof Failure) return page;
  const soonest = Math.min(ctx.services.videos.pollAfterMs(), ...page.tasks.map((t) => ctx.services.videos.pollAfterMs(t)));
  return { status: 200, body: videoTaskListToWire(page), headers: { 'openai-poll-after-ms': String(soonest) } };
}
