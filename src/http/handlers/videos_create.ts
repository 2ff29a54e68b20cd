import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { videoTaskToWire } from '../serialize/videos.ts';

export async function videos_create(ctx: RequestContext): Promise<Ok<PublicOperations, 'videos_create'> | Failure> {
  const key = ctx.headers['idempotency-key'];
  const task = await ctx.services.videos.create({
    caller: ctx.caller!,
    body: ctx.body as Record<string, unknown>,
    idempotencyKey: Array.isArray(key) ? key[0] : key,
  });
  if (task instanceof Failure) return task;
  return { status: 202, body: videoTaskToWire(task), headers: { 'openai-poll-after-ms': String(ctx.services.videos.pollAfterMs(task)) } };
}
