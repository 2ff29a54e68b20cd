import { Failure } from '../../domain/failure.ts';
import { rateLimitHeaders } from '../../domain/limits/headers.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';

export async function videos_create(ctx: RequestContext): Promise<Ok<PublicOperations, 'videos_create'> | Failure> {
  const key = ctx.headers['idempotency-key'];
  const result = await ctx.services.videos.create({
    caller: ctx.caller!,
    body: ctx.body as Record<string, unknown>,
    idempotencyKey: Array.isArray(key) ? key[0] : key,
  });
  if (result instanceof Failure) return result;
  // Only the platform id, under both names (DESIGN.md); the task is what GET /v1/videos/{id} shows.
  const { task, rate } = result;
  return {
    status: 202,
    body: { task_id: task.id, id: task.id },
    headers: { 'openai-poll-after-ms': String(ctx.services.videos.pollAfterMs(task)), ...rateLimitHeaders('openai', rate) },
  };
}
