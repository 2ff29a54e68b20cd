import { Failure } from '../../domain/failure.ts';
import type { StreamedReply, PublicContext } from '../handler.ts';

/** The file's bytes go out through ctx.sink; failures (JSON errors) come before any byte. */
export async function videos_content(ctx: PublicContext<'videos_content'>): Promise<StreamedReply | Failure> {
  const range = ctx.headers.range;
  const sent = await ctx.services.videos.content(
    ctx.caller,
    ctx.params.task_id,
    { variant: ctx.query.variant ?? 'video', range: Array.isArray(range) ? range[0] : range },
    ctx.sink,
  );
  if (sent instanceof Failure) return sent;
  return { streamed: true };
}
