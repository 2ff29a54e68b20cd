import { Failure } from '../../domain/failure.ts';
import type { PublicOperations } from '../../types.ts';
import type { RequestContext, StreamedReply } from '../handler.ts';

type Query = NonNullable<PublicOperations['videos_content']['parameters']['query']>;

/** The file's bytes go out through ctx.sink; failures (JSON errors) come before any byte. */
export async function videos_content(ctx: RequestContext): Promise<StreamedReply | Failure> {
  const range = ctx.headers.range;
  const sent = await ctx.services.videos.content(
    ctx.caller!,
    ctx.params.task_id ?? '',
    { variant: (ctx.query as Query).variant ?? 'video', range: Array.isArray(range) ? range[0] : range },
    ctx.sink,
  );
  if (sent instanceof Failure) return sent;
  return { streamed: true };
}
