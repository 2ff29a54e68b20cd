import { Failure } from '../../domain/failure.ts';
import { rateLimitHeaders } from '../../domain/limits/headers.ts';
import type { PublicOperations } from '../../types.ts';
import type { Ok, PublicContext } from '../handler.ts';
import { videoQuoteToWire } from '../serialize/quotes.ts';

export async function videos_create(ctx: PublicContext<'videos_create'>): Promise<Ok<PublicOperations, 'videos_create'> | Failure> {
  const body = ctx.body as Record<string, unknown>;
  if (body.dry_run === true || body.dry_run === 'true') {
    // A quote: what a create would hold now, with nothing created or charged.
    const quote = await ctx.services.billing.quoteVideo(ctx.caller, body);
    return quote instanceof Failure ? quote : { status: 200, body: videoQuoteToWire(quote, ctx.services.discovery.currency()) };
  }
  const key = ctx.headers['idempotency-key'];
  const result = await ctx.services.videos.create({
    caller: ctx.caller,
    body,
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
